import Testing

@testable import Geodesy

@Suite("Geodesic robustness")
struct GeodesicRobustnessTests {
    let g = Geodesic.wgs84

    @Test("random and nearly antipodal pairs never give NaN and round-trip through direct")
    func neverNaNAndRoundTrips() throws {
        var rng = SplitMix64(seed: 42)
        for i in 0..<20_000 {
            let lat1 = rng.uniform(-90, 90)
            let lon1 = rng.uniform(-180, 180)
            var lat2 = rng.uniform(-90, 90)
            var lon2 = rng.uniform(-180, 180)
            if i % 2 == 0 { // within 1e-12 … 1° of the antipode
                let d = pow10(rng.uniform(-12, 0))
                lat2 = max(-90, min(90, -lat1 + rng.uniform(-d, d)))
                lon2 = lon1 + 180 + rng.uniform(-d, d)
            }
            let p1 = try Coordinate(latitude: lat1, longitude: lon1)
            let p2 = try Coordinate(latitude: lat2, longitude: lon2)
            let r = g.inverse(p1, p2)
            #expect(r.distance.isFinite && r.azimuth1.isFinite && r.azimuth2.isFinite, "\(p1) \(p2)")
            #expect(r.distance >= 0 && r.distance <= 20_003_931.5)
            let back = g.direct(from: p1, azimuth: r.azimuth1, distance: r.distance)
            #expect(g.inverse(back.coordinate, p2).distance < 1e-6, "round trip \(p1) → \(p2)")
        }
    }

    @Test("exactly antipodal points: distance is half the meridian at the poles' latitude")
    func exactAntipodes() throws {
        let halfMeridian = 20_003_931.458625447 // GeographicLib, WGS84
        for lat in [0.0, 1e-9, 30, 45.5, 89.999, 90] {
            let p1 = try Coordinate(latitude: lat, longitude: 10)
            let p2 = try Coordinate(latitude: -lat, longitude: -170)
            let r = g.inverse(p1, p2)
            #expect(abs(r.distance - halfMeridian) < 1e-6, "lat \(lat): \(r.distance)")
        }
    }

    @Test("coincident points have distance zero; pole to pole is the full meridian half")
    func coincidentAndPoles() throws {
        let p = try Coordinate(latitude: 12.5, longitude: -33)
        #expect(g.inverse(p, p).distance == 0)
        let n = try Coordinate(latitude: 90, longitude: 0)
        let s = try Coordinate(latitude: -90, longitude: 77)
        let r = g.inverse(n, s)
        #expect(abs(r.distance - 20_003_931.458625447) < 1e-6)
        // As GeographicLib: at a pole the azimuth is taken relative to the given longitude.
        #expect(abs(r.azimuth1 - 103) < 1e-9 && abs(r.azimuth2 - 180) < 1e-9)
    }

    @Test("a negative distance goes backwards along the same geodesic")
    func negativeDistanceGoesBackwards() throws {
        let p = try Coordinate(latitude: 40, longitude: -74)
        let back = g.direct(from: p, azimuth: 30, distance: -50_000)
        let forward = g.direct(from: back.coordinate, azimuth: back.azimuth2, distance: 50_000)
        #expect(g.inverse(forward.coordinate, p).distance < 1e-6)
        #expect(abs(forward.azimuth2 - 30) < 1e-9)
        #expect(abs(g.inverse(p, back.coordinate).distance - 50_000) < 1e-6)
    }

    @Test("invalid inputs give typed errors")
    func invalidInputs() throws {
        let p = try Coordinate(latitude: 0, longitude: 0)
        #expect(throws: GeodesyError.nonFiniteValue(name: "distance", value: .infinity)) {
            try g.validatedDirect(from: p, azimuth: 0, distance: .infinity)
        }
        #expect(throws: GeodesyError.self) { try g.validatedDirect(from: p, azimuth: .nan, distance: 1) }
        #expect(throws: GeodesyError.invalidRadius(-1)) { try GeodesicCircle(validatingCenter: p, radius: -1) }
        #expect(throws: GeodesyError.self) { try GeodesicCircle(validatingCenter: p, radius: .nan) }
        #expect(throws: GeodesyError.latitudeOutOfRange(-90.5)) { try Coordinate(latitude: -90.5, longitude: 0) }
        #expect(throws: GeodesyError.nonFiniteLongitude(.infinity)) {
            try Coordinate(latitude: 0, longitude: .infinity)
        }
        // The non-throwing direct never crashes on bad input.
        #expect(g.direct(from: p, azimuth: .nan, distance: 1).azimuth2.isNaN)
        #expect(GeodesicCircle(center: p, radius: -5).contains(p) == false)
    }
}

func pow10(_ x: Double) -> Double {
    var r = 1.0
    var e = x
    // 10^x for x in [-12, 1] via exp2 to avoid Foundation.
    e *= 3.321928094887362
    r = Double(sign: .plus, exponent: Int(e.rounded(.down)), significand: 1)
    let f = e - e.rounded(.down)
    // 2^f for f in [0, 1): a short series is enough for test perturbations.
    var term = 1.0
    var sum = 1.0
    for k in 1...20 {
        term *= f * 0.6931471805599453 / Double(k)
        sum += term
    }
    return r * sum
}
