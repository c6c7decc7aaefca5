import Foundation
import Geodesy

// Polygon geometry, prepared once per region: rings unwrapped across the antimeridian,
// bounding boxes, size. Distances use a local ellipsoidal tangent plane at the query
// point (meridian radius M and prime-vertical radius N of WGS84), which for edges up to a
// few tens of km is within a fraction of a per cent of the geodesic distance; the
// inside test is exact for GeoJSON's straight edges in longitude / latitude.

/// One polygon (outer ring and holes), vertices as (longitude, latitude), longitude unwrapped
/// so that consecutive vertices differ by at most 180°.
struct PreparedPolygon: Sendable, Hashable {
    var rings: [[SIMD2<Double>]]
    var minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    var centerLon: Double { (minLon + maxLon) / 2 }

    init(_ polygon: Polygon, reference: Double?) {
        let outer = PreparedPolygon.unwrap(PreparedPolygon.openRing(polygon.exterior), reference: reference)
        let ref = outer.first?.x ?? 0
        rings = [outer] + polygon.holes.map { PreparedPolygon.unwrap(PreparedPolygon.openRing($0), reference: ref) }
        minLat = .infinity
        maxLat = -.infinity
        minLon = .infinity
        maxLon = -.infinity
        for v in outer {
            minLat = min(minLat, v.y)
            maxLat = max(maxLat, v.y)
            minLon = min(minLon, v.x)
            maxLon = max(maxLon, v.x)
        }
    }

    /// The ring without its closing vertex.
    static func openRing(_ ring: [Coordinate]) -> [Coordinate] {
        if ring.count > 1, ring.first == ring.last { return Array(ring.dropLast()) }
        return ring
    }

    /// Longitudes made continuous; the first vertex is moved within 180° of `reference`.
    static func unwrap(_ ring: [Coordinate], reference: Double?) -> [SIMD2<Double>] {
        guard let first = ring.first else { return [] }
        var lon = first.longitude
        if let r = reference { lon += 360 * ((r - lon) / 360).rounded() }
        var out: [SIMD2<Double>] = [SIMD2(lon, first.latitude)]
        out.reserveCapacity(ring.count)
        for i in 1..<max(1, ring.count) {
            var d = ring[i].longitude - ring[i - 1].longitude
            d -= 360 * (d / 360).rounded()
            lon += d
            out.append(SIMD2(lon, ring[i].latitude))
        }
        return out
    }

    /// Shoelace area in square metres on a local equirectangular plane (for size and
    /// degeneracy checks only).
    static func planarArea(_ ring: [SIMD2<Double>]) -> Double {
        guard ring.count >= 3 else { return 0 }
        let lat0 = ring.reduce(0) { $0 + $1.y } / Double(ring.count)
        let kx = 111_319.49 * cos(lat0 * .pi / 180)
        let ky = 110_574.0
        var s = 0.0
        var j = ring.count - 1
        for i in 0..<ring.count {
            s += (ring[j].x * kx) * (ring[i].y * ky) - (ring[i].x * kx) * (ring[j].y * ky)
            j = i
        }
        return s / 2
    }

    /// Even-odd inside test over all rings; `lon` already shifted next to this polygon.
    @inlinable
    func contains(lat: Double, lon: Double) -> Bool {
        var inside = false
        for ring in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[j]
                let b = ring[i]
                if (a.y > lat) != (b.y > lat) {
                    let x = a.x + (lat - a.y) * (b.x - a.x) / (b.y - a.y)
                    if lon < x { inside.toggle() }
                }
                j = i
            }
        }
        return inside
    }

    /// Squared distance (m²) from the point to the nearest edge, in the local plane with
    /// scale `kx`, `ky` metres per degree.
    @inlinable
    func nearestEdgeSquared(lat: Double, lon: Double, kx: Double, ky: Double) -> Double {
        var best = Double.infinity
        for ring in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let ax = (ring[j].x - lon) * kx
                let ay = (ring[j].y - lat) * ky
                let dx = (ring[i].x - lon) * kx - ax
                let dy = (ring[i].y - lat) * ky - ay
                let len2 = dx * dx + dy * dy
                var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
                t = min(1, max(0, t))
                let px = ax + t * dx
                let py = ay + t * dy
                best = min(best, px * px + py * py)
                j = i
            }
        }
        return best
    }
}

/// A polygon or multipolygon region's prepared geometry.
struct PreparedArea: Sendable, Hashable {
    var parts: [PreparedPolygon]
    /// Bounding box; longitudes unwrapped around the first part (may exceed ±180).
    var minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    /// √(area / π) in metres: the radius of a circle of the same area.
    var size: Double

    init?(_ shape: RegionShape) {
        let polys: [Polygon]
        switch shape {
        case .circle: return nil
        case .polygon(let p): polys = [p]
        case .multiPolygon(let ps): polys = ps
        }
        guard !polys.isEmpty else { return nil }
        var parts: [PreparedPolygon] = []
        var ref: Double? = nil
        var area = 0.0
        for p in polys {
            let part = PreparedPolygon(p, reference: ref)
            if ref == nil { ref = part.rings.first?.first?.x }
            area += abs(PreparedPolygon.planarArea(part.rings[0]))
            for h in part.rings.dropFirst() { area -= abs(PreparedPolygon.planarArea(h)) }
            parts.append(part)
        }
        self.parts = parts
        minLat = parts.map(\.minLat).min()!
        maxLat = parts.map(\.maxLat).max()!
        minLon = parts.map(\.minLon).min()!
        maxLon = parts.map(\.maxLon).max()!
        size = (max(area, 1) / .pi).squareRoot()
    }

    /// Signed distance in metres (negative inside).
    func signedDistance(latitude lat: Double, longitude lon: Double) -> Double {
        let φ = lat * .pi / 180
        let e2 = 0.00669437999014132
        let a = 6_378_137.0
        let w = 1 - e2 * sin(φ) * sin(φ)
        let n = a / w.squareRoot()
        let m = a * (1 - e2) / (w * w.squareRoot())
        let kx = n * cos(φ) * .pi / 180
        let ky = m * .pi / 180
        var inside = false
        var best = Double.infinity
        for part in parts {
            let l = lon + 360 * ((part.centerLon - lon) / 360).rounded()
            if !inside, lat >= part.minLat, lat <= part.maxLat, l >= part.minLon, l <= part.maxLon,
                part.contains(lat: lat, lon: l)
            {
                inside = true
            }
            best = min(best, part.nearestEdgeSquared(lat: lat, lon: l, kx: kx, ky: ky))
        }
        let d = best.squareRoot()
        return inside ? -d : d
    }
}
