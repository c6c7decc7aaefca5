import Foundation
import Testing

@testable import Geodesy

@Suite("Two-lane sin/cos for ECEF positions")
struct SinCosTests {
    /// |a − b| in units in the last place of `b`.
    static func ulps(_ a: Double, _ b: Double) -> Double { abs(a - b) / b.ulp }

    @Test("within 2 ulp of libm on [−2π, 2π], both lanes, every quadrant")
    func matchesLibm() {
        var rng = SplitMix64(seed: 42)
        var worstSin = 0.0
        var worstCos = 0.0
        for _ in 0..<200_000 {
            let x = SIMD2((rng.nextUnit() * 2 - 1) * 2 * .pi, (rng.nextUnit() * 2 - 1) * 2 * .pi)
            let (s, c) = sinCos(x)
            for l in 0..<2 {
                worstSin = max(worstSin, SinCosTests.ulps(s[l], sin(x[l])))
                worstCos = max(worstCos, SinCosTests.ulps(c[l], cos(x[l])))
            }
        }
        #expect(worstSin <= 2 && worstCos <= 2, "worst: sin \(worstSin) ulp, cos \(worstCos) ulp")
    }

    @Test("the axes: exact at 0, within 1e-16 of libm at every multiple of 90°; NaN gives NaN")
    func axes() {
        for deg in stride(from: -360.0, through: 360, by: 90) {
            let x = SIMD2(deg, -deg) * (Double.pi / 180)
            let (s, c) = sinCos(x)
            for l in 0..<2 {
                #expect(abs(s[l] - sin(x[l])) < 1e-16 && abs(c[l] - cos(x[l])) < 1e-16, "\(deg)°")
            }
        }
        let (s0, c0) = sinCos(SIMD2(0, -0.0))
        #expect(s0 == SIMD2(0, 0) && c0 == SIMD2(1, 1))
        let n = sinCos(SIMD2(.nan, 1))
        #expect(n.sin[0].isNaN && n.cos[0].isNaN && n.sin[1] == sin(1.0))
    }

    @Test("ECEF positions agree with libm's to a few nanometres")
    func cartesianAgrees() {
        var rng = SplitMix64(seed: 7)
        let a = 6_378_137.0
        let e2 = Ellipsoid.wgs84.eccentricitySquared
        var worst = 0.0
        for _ in 0..<50_000 {
            let lat = (rng.nextUnit() * 2 - 1) * 90
            let lon = (rng.nextUnit() * 2 - 1) * 180
            let p = CartesianPoint(latitude: lat, longitude: lon)
            let phi = lat * .pi / 180
            let lam = lon * .pi / 180
            let nu = a / (1 - e2 * sin(phi) * sin(phi)).squareRoot()
            let x = nu * cos(phi) * cos(lam)
            let y = nu * cos(phi) * sin(lam)
            let z = nu * (1 - e2) * sin(phi)
            worst = max(worst, abs(p.x - x), abs(p.y - y), abs(p.z - z))
        }
        #expect(worst < 5e-9, "worst \(worst) m")
    }
}
