import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Spatial index agrees with brute force")
struct RegionIndexTests {
    struct LCG {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
    }

    /// Expects the engine's answer to equal brute force's at `points` random points in a
    /// square of `span` metres around `base`; returns how many regions were found in all.
    func probe(
        _ engine: Engine, _ live: [String: Region], around base: Coordinate, span: Double,
        points: Int, rng: inout LCG
    ) -> Int {
        let brute = BruteForce(live)
        var hits = 0
        for _ in 0..<points {
            let p = Scene.point(base, north: (rng.next() - 0.5) * span, east: (rng.next() - 0.5) * span)
            let got = Set(engine.regions(containing: p))
            #expect(got == brute.regions(containing: p))
            hits += got.count
        }
        return hits
    }

    /// Every region tested with its exact `signedDistance`, shared by none of the engine's
    /// index. A cheap filter first, which can only keep too many: a spherical cap around each
    /// region that holds all of it. The caps spare the exact test only where it must answer
    /// "outside" (a debug build spends seconds on thousands of exact tests per point).
    struct BruteForce {
        /// The smallest radius of curvature of WGS84 (meridional, at the equator), less a
        /// margin: a geodesic of length s turns the normal by at most s over it.
        static let smallestRadius = 6_335_000.0

        private let caps: [(region: Region, axis: SIMD3<Double>, leastDot: Double)]

        init(_ live: [String: Region]) {
            caps = live.values.map { region in
                switch region.shape {
                case .circle(let center, let radius):
                    let angle = (radius * 1.01 + 100) / Self.smallestRadius
                    return (region, Self.normal(center), angle < .pi ? cos(angle) : -2)
                case .polygon(let polygon): return Self.cap(region, around: [polygon.exterior])
                case .multiPolygon(let parts): return Self.cap(region, around: parts.map(\.exterior))
                }
            }
        }

        /// The first vertex's cap through the farthest vertex holds the rings (a cap under a
        /// hemisphere is convex), their geodesic edges within the margins.
        private static func cap(
            _ region: Region, around rings: [[Coordinate]]
        ) -> (region: Region, axis: SIMD3<Double>, leastDot: Double) {
            let vertices = rings.joined()
            guard let first = vertices.first else { return (region, SIMD3(0, 0, 1), -2) }
            let axis = normal(first)
            let farthest = vertices.map { acos(min(1, (axis * normal($0)).sum())) }.max() ?? 0
            let angle = farthest * 1.01 + 100 / smallestRadius
            return (region, axis, angle < .pi / 2 ? cos(angle) : -2)
        }

        func regions(containing p: Coordinate) -> Set<String> {
            let n = Self.normal(p)
            return Set(
                caps.lazy.filter { ($0.axis * n).sum() >= $0.leastDot && $0.region.signedDistance(to: p) <= 0 }
                    .map(\.region.identifier))
        }

        /// The unit normal of the geodetic latitude and longitude.
        static func normal(_ c: Coordinate) -> SIMD3<Double> {
            let lat = c.latitude * .pi / 180
            let lon = c.longitude * .pi / 180
            return SIMD3(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
        }
    }

    @Test(
        "brute force's caps drop no region the exact test finds: points just inside edges, at the poles and across 180°",
        arguments: [(0.0, 0.0), (-16.5, 179.9), (89.9, 10.0), (-89.5, -170.0)])
    func bruteForceCapsAreConservative(lat: Double, lon: Double) throws {
        var rng = LCG(state: UInt64(abs(lat * 1000 + lon)) + 11)
        let base = Coordinate(uncheckedLatitude: lat, longitude: lon)
        var live: [String: Region] = [:]
        var edges: [Coordinate] = []
        for i in 0..<150 {
            let center = Scene.point(base, north: (rng.next() - 0.5) * 30_000, east: (rng.next() - 0.5) * 30_000)
            let radius = 20 + rng.next() * 8_000
            live["c\(i)"] = .circle(identifier: "c\(i)", center: center, radius: radius)
            // Points 1 cm inside the circle's edge, where a cap too tight would drop it.
            let azimuth = rng.next() * 360
            edges.append(Geodesic.wgs84.direct(from: center, azimuth: azimuth, distance: radius - 0.01).coordinate)
            if i % 3 == 0 {
                let ring = (0..<(3 + i % 7)).map { k -> Coordinate in
                    let a = Double(k) / Double(3 + i % 7) * 2 * .pi
                    return Scene.point(center, north: radius * cos(a), east: radius * sin(a))
                }
                live["p\(i)"] = Region(identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring)))
                edges.append(Scene.point(center, north: radius * 0.999 * cos(0.0)))
            }
        }
        let brute = BruteForce(live)
        let random = (0..<200).map { _ in
            Scene.point(base, north: (rng.next() - 0.5) * 40_000, east: (rng.next() - 0.5) * 40_000)
        }
        var found = 0
        for p in edges + random {
            let exact = Set(live.values.filter { $0.signedDistance(to: p) <= 0 }.map(\.identifier))
            #expect(brute.regions(containing: p) == exact)
            found += exact.count
        }
        #expect(found > 150, "most edge points are inside their region")
    }

    @Test(
        "random circles, polygons, removals and replacements, near the antimeridian and the poles too",
        arguments: [(0.0, 0.0), (31.2, 121.5), (-16.5, 179.9), (89.0, 10.0)])
    func matchesBruteForce(lat: Double, lon: Double) throws {
        var rng = LCG(state: UInt64(abs(lat * 1000 + lon)) + 7)
        let base = Coordinate(uncheckedLatitude: lat, longitude: lon)
        var engine = Engine()
        var live: [String: Region] = [:]
        func randomRegion(_ id: String) -> Region {
            let center = Scene.point(base, north: (rng.next() - 0.5) * 40_000, east: (rng.next() - 0.5) * 40_000)
            if rng.next() < 0.8 {
                return .circle(identifier: id, center: center, radius: 50 + rng.next() * 3_000)
            }
            let n = 3 + Int(rng.next() * 10)
            let size = 200 + rng.next() * 3_000
            let ring = (0..<n).map { i -> Coordinate in
                let a = Double(i) / Double(n) * 2 * .pi
                let r = size * (0.5 + rng.next() * 0.5)
                return Scene.point(center, north: r * cos(a), east: r * sin(a))
            }
            return Region(identifier: id, shape: .polygon(Polygon(exterior: ring)))
        }
        try engine.add(contentsOf: (0..<3_000).map { randomRegion("b\($0)") })
        for r in engine.regions { live[r.identifier] = r }
        for i in 0..<6_000 { // enough single adds and removals to trigger rebuilds
            let k = rng.next()
            if k < 0.5 {
                let r = randomRegion("d\(i)")
                try engine.add(r)
                live[r.identifier] = r
            } else if k < 0.8, let id = live.keys.min() {
                engine.remove(identifier: id)
                live[id] = nil
            } else {
                let id = "b\(Int(rng.next() * 3_000))"
                let r = randomRegion(id)
                try engine.add(r)
                live[id] = r
            }
        }
        #expect(engine.regionCount == live.count)
        #expect(probe(engine, live, around: base, span: 44_000, points: 400, rng: &rng) > 100)
    }

    @Test("dense regions are lowered one level below the median's and still found exactly")
    func denseLowered() throws {
        var rng = LCG(state: 99)
        let base = Coordinate(uncheckedLatitude: 45, longitude: 5)
        func circle(_ id: String) -> Region {
            .circle(
                identifier: id,
                center: Scene.point(base, north: (rng.next() - 0.5) * 8_000, east: (rng.next() - 0.5) * 8_000),
                radius: 50 + rng.next() * 450)
        }
        var engine = Engine()
        var live: [String: Region] = [:]
        try engine.add(contentsOf: (0..<8_000).map { circle("c\($0)") })
        for r in engine.regions { live[r.identifier] = r }
        var ids = live.keys.sorted()
        // 125 circles per km²: two levels of long cells, or one finer level of short ones.
        let placement = engine.index.placement
        #expect(placement.reach > 0)
        #expect(placement.base == 0)
        // Inserts after the build go to the same placement (overflow), removals leave stale entries.
        for i in 0..<1_000 {
            if rng.next() < 0.6 {
                let r = circle("d\(i)")
                try engine.add(r)
                live[r.identifier] = r
                ids.append(r.identifier)
            } else {
                let k = Int(rng.next() * Double(ids.count))
                engine.remove(identifier: ids[k])
                live[ids[k]] = nil
                ids.swapAt(k, ids.count - 1)
                ids.removeLast()
            }
        }
        #expect(engine.index.placement == placement)
        #expect(probe(engine, live, around: base, span: 9_000, points: 600, rng: &rng) > 2_000)
    }

    /// A poor hash (the product's middle bits) clustered neighbouring cells: 3.2 buckets per
    /// lookup in the city benchmark, half of them past the home bucket, where the batch's
    /// prefetch of a cell's entries does not follow. Fibonacci hashing spreads them.
    @Test(
        "neighbouring cells hash apart: point lookups rarely probe past the home bucket",
        arguments: [(4_000.0, 8_000), (40_000.0, 20_000), (600_000.0, 60_000)])
    func bucketProbes(span: Double, count: Int) throws {
        var rng = LCG(state: 7)
        let base = Coordinate(uncheckedLatitude: 45, longitude: 5)
        var engine = Engine()
        try engine.add(
            contentsOf: (0..<count).map { i in
                Region.circle(
                    identifier: "c\(i)",
                    center: Scene.point(
                        base, north: (rng.next() - 0.5) * span,
                        east: (rng.next() - 0.5) * span),
                    radius: 50 + rng.next() * 450)
            })
        let index = engine.index
        var probes = 0
        var lookups = 0
        for _ in 0..<20_000 {
            let p = Scene.point(base, north: (rng.next() - 0.5) * span, east: (rng.next() - 0.5) * span)
            probes += index.bucketProbes(lat: p.latitude, lon: p.longitude)
            lookups += index.populatedLevelCount
        }
        let mean = Double(probes) / Double(lookups)
        #expect(mean < 1.8, "\(mean) buckets per lookup")
    }

    @Test("a huge circle around the pole and a small one are both found")
    func poleAndHuge() throws {
        var engine = Engine()
        try engine.add(
            .circle(identifier: "arctic", center: Coordinate(uncheckedLatitude: 90, longitude: 0), radius: 500_000))
        try engine.add(
            .circle(identifier: "half", center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 9_000_000))
        #expect(Set(engine.regions(containing: Coordinate(uncheckedLatitude: 87, longitude: -120))) == ["arctic"])
        #expect(Set(engine.regions(containing: Coordinate(uncheckedLatitude: 10, longitude: 60))) == ["half"])
        #expect(engine.regions(containing: Coordinate(uncheckedLatitude: -30, longitude: 170)).isEmpty)
    }
}
