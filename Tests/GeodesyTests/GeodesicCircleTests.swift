import Foundation
import Testing

@testable import Geodesy

@Suite("GeodesicCircle: exact inside tests with the chord bound")
struct GeodesicCircleTests {
    let g = Geodesic.wgs84

    @Test("never misclassifies points more than 1 mm from the boundary, latitudes to ±89.9°, radii 1 m–100 km")
    func neverMisclassifies() throws {
        var rng = SplitMix64(seed: 7)
        var checked = 0
        for _ in 0..<400 {
            let lat = rng.uniform(-89.9, 89.9)
            let lon = rng.uniform(-180, 180)
            let center = try Coordinate(latitude: lat, longitude: lon)
            let radius = pow10(rng.uniform(0, 5))
            let circle = GeodesicCircle(center: center, radius: radius)
            for _ in 0..<50 {
                // Offset from the boundary: 1 mm … radius, inside or outside.
                let offset = pow10(rng.uniform(-3, log10(radius)))
                let inside = rng.next() & 1 == 0
                let d = inside ? radius - offset : radius + offset
                guard d >= 0 else { continue }
                let p = g.direct(from: center, azimuth: rng.uniform(-180, 180), distance: d).coordinate
                #expect(circle.contains(p) == inside, "r \(radius) at \(center), offset \(offset), inside \(inside)")
                let sd = circle.signedDistance(to: p)
                #expect((sd <= 0) == inside)
                #expect(abs(sd - (d - radius)) <= 1e-3 * abs(d - radius) + 1e-6)
                checked += 1
            }
        }
        #expect(checked > 15_000)
    }

    @Test("the smallest radius of curvature and e² are WGS84's, and the chord excess matches 2R·asin(c/2R) − c")
    func chordExcessMatchesAsin() {
        #expect(GeodesicCircle.minimumRadiusOfCurvature == Ellipsoid.wgs84.minimumRadiusOfCurvature)
        #expect(CartesianPoint.wgs84E2 == Ellipsoid.wgs84.eccentricitySquared)
        let twoR = 2 * GeodesicCircle.minimumRadiusOfCurvature
        var c = 1e-3
        while c < twoR {
            let direct = twoR * asin(min(1, c / twoR)) - c
            let excess = GeodesicCircle.chordExcess(c)
            // The direct form loses digits to cancellation: allow its rounding (≈ 2 ulp of c).
            let allowance = 4 * c.ulp + 1e-12 * abs(direct)
            #expect(abs(excess - direct) <= allowance, "c \(c): \(excess) vs \(direct)")
            #expect(excess >= 0)
            c *= 1.37
        }
        // Continuous where the series hands over to asin (0.05 · 2R).
        let edge = 0.05 * twoR
        #expect(abs(GeodesicCircle.chordExcess(edge.nextUp) - GeodesicCircle.chordExcess(edge)) < 1e-6)
        // At short range it is the leading term c³ / 6(2R)².
        #expect(abs(GeodesicCircle.chordExcess(100) / (100 * 100 * 100 / (6 * twoR * twoR)) - 1) < 1e-9)
    }

    @Test("the chord step alone is never wrong, and leaves undecided only a band of about r³/24R² around the boundary")
    func chordBoundIsRigorous() throws {
        var rng = SplitMix64(seed: 11)
        let R = GeodesicCircle.minimumRadiusOfCurvature
        for _ in 0..<20_000 {
            let center = try Coordinate(latitude: rng.uniform(-89.9, 89.9), longitude: rng.uniform(-180, 180))
            let radius = pow10(rng.uniform(0, 5))
            let circle = GeodesicCircle(center: center, radius: radius)
            let d = radius * rng.uniform(0.9, 1.1)
            let p = g.direct(from: center, azimuth: rng.uniform(-180, 180), distance: d).coordinate
            let exact = g.inverse(center, p).distance
            switch circle.classifyByChord(CartesianPoint(p)) {
            case .inside: #expect(exact <= radius)
            case .outside: #expect(exact > radius)
            case .undecided:
                let band = radius * radius * radius / (24 * R * R) + 2 * GeodesicCircle.roundingAllowance
                #expect(abs(exact - radius) <= band + 1e-7, "r \(radius), undecided at \(exact - radius)")
            }
        }
    }

    @Test("points far outside are rejected by the box; near the poles and across the antimeridian too")
    func boundingBoxHoldsTheCircle() throws {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2_000 {
            let lat = rng.next() & 3 == 0 ? rng.uniform(-90, 90) : (rng.next() & 1 == 0 ? 1 : -1) * rng.uniform(85, 90)
            let lon =
                rng.next() & 1 == 0 ? rng.uniform(-180, 180) : (rng.next() & 1 == 0 ? 1 : -1) * rng.uniform(179, 180)
            let center = try Coordinate(latitude: lat, longitude: lon)
            let radius = pow10(rng.uniform(0, 5.5))
            let circle = GeodesicCircle(center: center, radius: radius)
            let box = circle.boundingBox
            for _ in 0..<20 {
                let p = g.direct(from: center, azimuth: rng.uniform(-180, 180), distance: radius * rng.uniform(0, 1))
                    .coordinate
                #expect(box.contains(p), "box \(box) misses \(p) of circle r \(radius) at \(center)")
            }
        }
        let c = GeodesicCircle(center: try Coordinate(latitude: 10, longitude: 179.99), radius: 5_000)
        #expect(c.boundingBox.crossesAntimeridian)
        #expect(c.contains(try Coordinate(latitude: 10, longitude: -179.99)))
        let polar = GeodesicCircle(center: try Coordinate(latitude: 89.99, longitude: 0), radius: 5_000)
        #expect(polar.boundingBox.spansAllLongitudes)
        #expect(polar.contains(try Coordinate(latitude: 89.995, longitude: 180)))
        #expect(polar.contains(try Coordinate(latitude: 90, longitude: 0)))
    }

    @Test("large circles (beyond the chord limit) are still exact")
    func largeCircles() throws {
        let center = try Coordinate(latitude: 0, longitude: 0)
        let circle = GeodesicCircle(center: center, radius: 5_000_000)
        var rng = SplitMix64(seed: 5)
        for _ in 0..<500 {
            let p = try Coordinate(latitude: rng.uniform(-90, 90), longitude: rng.uniform(-180, 180))
            #expect(circle.contains(p) == (g.inverse(center, p).distance <= 5_000_000))
        }
    }
}

func log10(_ x: Double) -> Double {
    // Only for choosing random exponents in tests.
    var e = 0.0
    var v = x
    while v >= 10 {
        v /= 10
        e += 1
    }
    while v < 1 {
        v *= 10
        e -= 1
    }
    return e + (v - 1) / 9
}
