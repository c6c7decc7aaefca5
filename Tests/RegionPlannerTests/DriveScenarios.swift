import Foundation
import Geodesy
import Geofencing

@testable import RegionPlanner

/// The 400 km drive data set (fixed seeds): catalogues of 200,000 circles and a route through
/// 20 cities, with the variants the planner must survive.
enum Drive {
    static let frame = Frame(latitude: 47.0, longitude: 8.0)
    /// 20 city centres on a zig-zag 400 km route (east / north metres in ``frame``).
    static let cities: [(Double, Double)] = (0..<20).map { (i: Int) -> (Double, Double) in
        let east = 20_000 + Double(i) * 19_000
        let north: Double = i % 2 == 0 ? 294_000 : 306_000
        return (east, north)
    }

    /// 200,000 circles of 50–2,000 m: 20 cities of 1,500 circles (35 of them centred within
    /// 150 m of the city centre, so 35 overlap there; the rest within 6 km, radii skewed small),
    /// and 170,000 over 1,000 km × 600 km.
    static let clustered: [Region] = clustered(sharpEdges: false)

    /// As ``clustered``, with each city's regions wholly within its 6 km disc (a city that ends
    /// where its places end): the same counts and radii, centres drawn within 6 km − radius.
    static let sharpCities: [Region] = clustered(sharpEdges: true)
    static let sharpCitiesCatalogue = try! Catalogue(sharpCities.map { CatalogueEntry(region: $0) })

    static func clustered(sharpEdges: Bool) -> [Region] {
        var rng = SplitMix64(seed: 20_261_125)
        var out: [Region] = []
        out.reserveCapacity(200_000)
        for (c, (ce, cn)) in cities.enumerated() {
            for j in 0..<1_500 {
                let core = j < 35
                let u = rng.uniform(0, 1)
                let a = rng.uniform(0, 2 * .pi)
                let radius = core ? rng.uniform(300, 2_000) : 50 + 1_950 * pow(rng.uniform(0, 1), 3)
                let reach = sharpEdges ? 6_000 - radius : 6_000
                let d = core ? 150 * u : reach * u.squareRoot()
                out.append(
                    .circle(
                        identifier: "c\(c)-\(j)", center: frame.coordinate(ce + d * sin(a), cn + d * cos(a)),
                        radius: radius))
            }
        }
        for i in 0..<170_000 {
            out.append(
                .circle(
                    identifier: "u\(i)",
                    center: frame.coordinate(rng.uniform(-100_000, 900_000), rng.uniform(0, 600_000)),
                    radius: rng.uniform(50, 2_000)))
        }
        return out
    }
    static let clusteredCatalogue = try! Catalogue(clustered.map { CatalogueEntry(region: $0) })

    /// 200,000 circles of 50–2,000 m spread evenly over 1,000 km × 600 km.
    static let uniform: [Region] = Scenario.circles(
        count: 200_000, frame: frame, width: 1_000_000, height: 600_000,
        radii: 50...2_000, seed: 77)
    static let uniformCatalogue = try! Catalogue(uniform.map { CatalogueEntry(region: $0) })

    struct Route {
        var fixes: [LocationFix]
        var kilometres: Double
    }

    /// The route through the city centres at ~28 m/s (±25 %, never above 36 m/s), one fix
    /// every `interval` s, AR(1) GPS noise σ 8 m, honest accuracies.
    static func route(
        interval: Double, seed: UInt64 = 5, subject: String = "car", sigma: Double = 8, claimedAccuracy: Double? = nil
    ) -> Route {
        var rng = SplitMix64(seed: seed)
        let points = [(0.0, 300_000.0)] + cities
        var fixes: [LocationFix] = []
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        var t = 0.0
        var travelled = 0.0
        var ex = 0.0
        var ey = 0.0
        let rho = 0.95
        for (a, b) in zip(points, points.dropFirst()) {
            let leg = hypot(b.0 - a.0, b.1 - a.1)
            var s = 0.0
            while s < leg {
                let f = s / leg
                let x = a.0 + (b.0 - a.0) * f
                let y = a.1 + (b.1 - a.1) * f
                ex = rho * ex + (1 - rho * rho).squareRoot() * sigma * rng.nextGaussian()
                ey = rho * ey + (1 - rho * rho).squareRoot() * sigma * rng.nextGaussian()
                fixes.append(
                    LocationFix(
                        subject: subject, coordinate: frame.coordinate(x + ex, y + ey),
                        horizontalAccuracy: claimedAccuracy ?? max(5, hypot(ex, ey) * 1.3),
                        timestamp: start.addingTimeInterval(t)))
                let v = min(36, 28 * rng.uniform(0.75, 1.25))
                s += v * interval
                travelled += v * interval
                t += interval
            }
        }
        return Route(
            fixes: fixes,
            kilometres: min(
                travelled,
                points.dropFirst().indices.reduce(0) { acc, i in
                    acc + hypot(points[i].0 - points[i - 1].0, points[i].1 - points[i - 1].1)
                }) / 1_000)
    }

    /// The route's first `count` fixes, `kilometres` long (a 1 s route's first 4,000 fixes: its
    /// first 110 km, five cities and the road between them).
    static func prefix(_ r: Route, _ count: Int, kilometres: Double) -> Route {
        Route(fixes: Array(r.fixes.prefix(count)), kilometres: kilometres)
    }

    /// The share of the route's time spent within 6 km of a city centre (where each city's
    /// 1,500 regions lie).
    static func cityShare(_ r: Route) -> Double {
        var inside = 0.0
        for (a, b) in zip(r.fixes, r.fixes.dropFirst()) {
            let p = frame.projection.project(a.coordinate)
            let near = cities.contains { hypot(p.east - $0.0, p.north - $0.1) <= 6_000 }
            if near { inside += b.timestamp.timeIntervalSince(a.timestamp) }
        }
        let total = r.fixes.last!.timestamp.timeIntervalSince(r.fixes[0].timestamp)
        return inside / total
    }

    /// The route with a 10-minute gap (a tunnel) starting at `fraction` of the fixes.
    static func withGap(_ r: Route, fraction: Double = 0.3, seconds: Double = 600) -> Route {
        let start = r.fixes[Int(Double(r.fixes.count) * fraction)].timestamp
        var out = r
        out.fixes.removeAll { $0.timestamp > start && $0.timestamp < start.addingTimeInterval(seconds) }
        return out
    }

    /// The route with single-fix glitches `distance` metres off at `indices` (accuracy claiming ±10 m).
    static func withGlitches(_ r: Route, at indices: [Int], distance: Double = 5_000, seed: UInt64 = 9) -> Route {
        var rng = SplitMix64(seed: seed)
        var out = r
        for i in indices where i > 0 && i < r.fixes.count {
            let a = rng.uniform(0, 360)
            let f = r.fixes[i]
            out.fixes[i] = LocationFix(
                subject: f.subject,
                coordinate: Geodesic.wgs84.direct(from: f.coordinate, azimuth: a, distance: distance).coordinate,
                horizontalAccuracy: 10, timestamp: f.timestamp)
        }
        return out
    }

    // The drive's fixes claim at most ±45 m (1.3 × an error of σ = 8 m per axis); ±90 m is
    // the coarsest fix whose noise margin (20 m + 2 × 90 m) stays within the 200 m cushion.
    static let sizing1s = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 2_000, maximumSpeed: 40,
        maximumFixInterval: 1, maximumAccuracy: 90, glitchAllowance: 250)
    static let sizing60s = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 2_000, maximumSpeed: 40,
        maximumFixInterval: 60, maximumAccuracy: 90, glitchAllowance: 250)
}
