import Foundation
import Geodesy
import Geofencing

extension SVGMap {
    /// The projection and the pixel layout of one map.
    struct Frame {
        let projection: LocalProjection
        var minE = 0.0, maxE = 0.0, minN = 0.0, maxN = 0.0
        let mapX: Double, mapY: Double, mapW: Double, mapH: Double
        /// Pixels per metre.
        let scale: Double
        let height: Double
        let circleVertices: Int
        var outlines: [String: [[(e: Double, n: Double)]]] = [:]

        var metresAcross: Double { mapW / scale }

        init(map: SVGMap) {
            circleVertices = map.circleVertices
            // View: the tracks, plus the regions that have events (all regions if no track).
            var lats: [Double] = []
            var lons: [Double] = []
            for t in map.tracks {
                for p in t.points {
                    lats.append(p.latitude)
                    lons.append(p.longitude)
                }
            }
            let eventRegions = Set(map.events.map(\.event.regionID))
            let framing =
                lats.isEmpty || map.regions.count <= 200
                ? map.regions
                : map.regions.filter { eventRegions.contains($0.identifier) }
            // Origin: the middle of the data (longitudes unwrapped around the first one).
            var refLon: Double?
            func addGeo(_ c: Coordinate) {
                var lon = c.longitude
                if let r = refLon { lon += 360 * ((r - lon) / 360).rounded() } else { refLon = lon }
                lats.append(c.latitude)
                lons.append(lon)
            }
            if let first = lons.first { refLon = first }
            for r in framing { for ring in Frame.geoOutline(r, vertices: 24) { for c in ring { addGeo(c) } } }
            let midLat = lats.isEmpty ? 0 : (lats.min()! + lats.max()!) / 2
            let midLon = lons.isEmpty ? 0 : (lons.min()! + lons.max()!) / 2
            projection = LocalProjection(origin: Coordinate(uncheckedLatitude: midLat, longitude: midLon))
            var minE = Double.infinity
            var maxE = -Double.infinity
            var minN = Double.infinity
            var maxN = -Double.infinity
            for i in lats.indices {
                let q = projection.project(Coordinate(uncheckedLatitude: lats[i], longitude: lons[i]))
                minE = Swift.min(minE, q.east)
                maxE = Swift.max(maxE, q.east)
                minN = Swift.min(minN, q.north)
                maxN = Swift.max(maxN, q.north)
            }
            if !minE.isFinite {
                minE = -500
                maxE = 500
                minN = -500
                maxN = 500
            }
            // At least 200 m across; 6 % padding.
            let spanE = Swift.max(maxE - minE, 200)
            let spanN = Swift.max(maxN - minN, 200)
            let cE = (minE + maxE) / 2
            let cN = (minN + maxN) / 2
            let padE = spanE * 0.56
            let padN = spanN * 0.56
            mapX = SVGMap.margin
            mapY = SVGMap.titleHeight + 8
            mapW = map.width - SVGMap.panelWidth - SVGMap.margin * 2
            // Height from the aspect ratio, kept between 420 and 1,100 px.
            let aspect = (padN * 2) / (padE * 2)
            mapH = Swift.min(1_100, Swift.max(420, mapW * aspect))
            scale = Swift.min(mapW / (padE * 2), mapH / (padN * 2))
            let halfE = mapW / scale / 2
            let halfN = mapH / scale / 2
            self.minE = cE - halfE
            self.maxE = cE + halfE
            self.minN = cN - halfN
            self.maxN = cN + halfN
            height = mapY + mapH + SVGMap.margin
        }

        func x(_ e: Double) -> Double { mapX + (e - minE) * scale }
        func y(_ n: Double) -> Double { mapY + (maxN - n) * scale }

        /// The region's rings in east / north metres.
        mutating func outline(_ region: Region) -> [[(e: Double, n: Double)]] {
            Frame.geoOutline(region, vertices: circleVertices).map { ring in
                ring.map { c in
                    let q = projection.project(c)
                    return (q.east, q.north)
                }
            }
        }

        func intersectsView(_ rings: [[(e: Double, n: Double)]]) -> Bool {
            guard let ext = rings.first, !ext.isEmpty else { return false }
            let es = ext.map(\.e)
            let ns = ext.map(\.n)
            return es.max()! >= minE && es.min()! <= maxE && ns.max()! >= minN && ns.min()! <= maxN
        }

        /// Rings of a region as coordinates: circles as geodesic polygons.
        static func geoOutline(_ region: Region, vertices: Int) -> [[Coordinate]] {
            switch region.shape {
            case .circle(let center, let radius):
                return [
                    (0..<vertices).map { k in
                        Geodesic.wgs84.direct(
                            from: center, azimuth: Double(k) * 360 / Double(vertices), distance: radius
                        ).coordinate
                    }
                ]
            case .polygon(let p):
                return [p.exterior] + p.holes
            case .multiPolygon(let ps):
                return ps.flatMap { [$0.exterior] + $0.holes }
            }
        }
    }
}
