import Geodesy
import Geofencing

extension Region {
    /// A circle (centre, radius in metres) that contains the whole region, for the cap tree.
    /// Exact for circles; for polygons the longitude / latitude box of the exterior rings,
    /// measured geodesically from its centre with 2 % + 10 m of slack (edges are straight in
    /// longitude / latitude, so they stay inside the box).
    var boundingCircle: (center: Coordinate, radius: Double) {
        switch shape {
        case .circle(let center, let radius):
            return (center, radius)
        case .polygon(let p):
            return Region.boundingCircle(of: [p.exterior])
        case .multiPolygon(let ps):
            return Region.boundingCircle(of: ps.map(\.exterior))
        }
    }

    private static func boundingCircle(of rings: [[Coordinate]]) -> (center: Coordinate, radius: Double) {
        guard let first = rings.first(where: { !$0.isEmpty })?.first else {
            return (Coordinate(uncheckedLatitude: 0, longitude: 0), 0)
        }
        // Unwrap longitudes around the first vertex so an antimeridian ring stays compact.
        var minLat = 90.0
        var maxLat = -90.0
        var minLon = Double.infinity
        var maxLon = -Double.infinity
        for ring in rings {
            var previous = first.longitude
            for c in ring {
                var lon = c.longitude
                while lon - previous > 180 { lon -= 360 }
                while lon - previous < -180 { lon += 360 }
                previous = lon
                minLat = min(minLat, c.latitude)
                maxLat = max(maxLat, c.latitude)
                minLon = min(minLon, lon)
                maxLon = max(maxLon, lon)
            }
        }
        let center = Coordinate(uncheckedLatitude: (minLat + maxLat) / 2, longitude: (minLon + maxLon) / 2)
        var radius = 0.0
        let lats = [minLat, (minLat + maxLat) / 2, maxLat]
        let lons = [minLon, (minLon + maxLon) / 2, maxLon]
        for lat in lats {
            for lon in lons {
                let p = Coordinate(uncheckedLatitude: lat, longitude: lon)
                radius = max(radius, Geodesic.wgs84.inverse(center, p).distance)
            }
        }
        return (center, radius * 1.02 + 10)
    }
}
