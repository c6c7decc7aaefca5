import Testing

@testable import Geodesy

@Suite("LocalProjection")
struct LocalProjectionTests {
    let g = Geodesic.wgs84

    @Test("plane distances match geodesic ones within 1.5·(d/6371 km)·(1 + |tan φ₀|), |φ₀| ≤ 80°, d ≤ 10 km")
    func accuracyBound() throws {
        var rng = SplitMix64(seed: 17)
        var worst = 0.0
        for _ in 0..<3_000 {
            let origin = try Coordinate(latitude: rng.uniform(-80, 80), longitude: rng.uniform(-180, 180))
            let proj = LocalProjection(origin: origin)
            let d = rng.uniform(1, 10_000)
            let a = g.direct(from: origin, azimuth: rng.uniform(-180, 180), distance: d * rng.uniform(0, 1)).coordinate
            let b = g.direct(from: origin, azimuth: rng.uniform(-180, 180), distance: d * rng.uniform(0, 1)).coordinate
            let pa = proj.project(a)
            let pb = proj.project(b)
            let plane = ((pa.east - pb.east) * (pa.east - pb.east) + (pa.north - pb.north) * (pa.north - pb.north))
                .squareRoot()
            let exact = g.inverse(a, b).distance
            guard exact > 1 else { continue }
            let rel = abs(plane - exact) / exact
            let tanPhi = abs(sincosDegrees(origin.latitude).sin / sincosDegrees(origin.latitude).cos)
            let bound = 1.5 * (d / 6_371_000) * (1 + tanPhi)
            worst = max(worst, rel / bound)
            #expect(rel <= bound, "origin \(origin), d \(d): relative error \(rel) > \(bound)")
        }
        print("LocalProjection: worst error / bound = \(worst)")
    }

    @Test("unproject inverts project, also across the antimeridian")
    func roundTrip() throws {
        let origin = try Coordinate(latitude: -16.5, longitude: 179.9)
        let proj = LocalProjection(origin: origin)
        let p = try Coordinate(latitude: -16.45, longitude: -179.95)
        let (e, n) = proj.project(p)
        #expect(e > 0)
        let q = proj.unproject(east: e, north: n)
        #expect(abs(q.latitude - p.latitude) < 1e-12 && abs(q.longitude - p.longitude) < 1e-9)
        #expect(proj.project(origin) == (0, 0))
    }
}
