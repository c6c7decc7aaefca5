import Foundation
import Geodesy

// Evaluation harness, part 2: the GPS error model.
//
// - Correlated noise: first-order Gauss-Markov per axis, σ per track, τ = 60 s.
// - Reported accuracy, honest: 1.5 σ (≈ the 68 % radius of a 2-D normal) × U(0.8, 1.25).
// - Lies: a share of fixes (3 % by default) report U(2, 5) m while carrying the normal error.
// - Jumps: each fix starts one with a small probability (0.4 % by default): 100–500 m in a
//   random direction for a few fixes (1–3 by default), a share of them (half by default)
//   claiming U(2, 5) m accuracy (Tracelet#294), the rest U(20, 60) m.
// - Absurd: 0.3 % of fixes are cell / IP positions: up to 3 km off, accuracy 5–20 km.
// - Nothing but honest noise in the first 30 s (the initial state is taken from the first fix).
struct GPSErrorModel {
    /// The rates and sizes of the error kinds above.
    struct Profile: Sendable {
        var lieRate = 0.03
        var jumpRate = 0.004
        var jumpFixes = 1...3
        var jumpDistance = 100.0...500.0
        var jumpLieShare = 0.5
        var absurdRate = 0.003
    }

    var sigma: Double
    var profile: Profile
    var rng: SplitMix64
    var tau = 60.0
    var ex = 0.0, ey = 0.0
    var jumpLeft = 0
    var jump = SIMD2<Double>(0, 0)
    var jumpAccuracy = 0.0

    init(sigma: Double, rng: SplitMix64, profile: Profile = Profile()) {
        self.sigma = sigma
        self.rng = rng
        self.profile = profile
        ex = sigma * self.rng.nextGaussian()
        ey = sigma * self.rng.nextGaussian()
    }

    mutating func observe(_ p: Coordinate, dt: Double, elapsed: Double) -> (Coordinate, Double) {
        let phi = exp(-dt / tau)
        let k = sigma * (1 - phi * phi).squareRoot()
        ex = phi * ex + k * rng.nextGaussian()
        ey = phi * ey + k * rng.nextGaussian()
        var offset = SIMD2(ex, ey)
        var accuracy = 1.5 * sigma * rng.uniform(0.8, 1.25)
        let warm = elapsed >= 30
        if jumpLeft > 0 {
            jumpLeft -= 1
            offset += jump
            accuracy = jumpAccuracy
        } else if warm, rng.nextUnit() < profile.jumpRate {
            let a = rng.uniform(0, 2 * .pi)
            let d = rng.uniform(profile.jumpDistance.lowerBound, profile.jumpDistance.upperBound)
            jump = SIMD2(sin(a), cos(a)) * d
            let fixes = profile.jumpFixes
            // This fix plus the rest.
            jumpLeft = Int(rng.uniform(Double(fixes.lowerBound), Double(fixes.upperBound) + 1)) - 1
            jumpAccuracy = rng.nextUnit() < profile.jumpLieShare ? rng.uniform(2, 5) : rng.uniform(20, 60)
            offset += jump
            accuracy = jumpAccuracy
        } else if warm, rng.nextUnit() < profile.absurdRate {
            let a = rng.uniform(0, 2 * .pi)
            let d = rng.uniform(0, 3_000)
            offset += SIMD2(sin(a), cos(a)) * d
            accuracy = rng.uniform(5_000, 20_000)
        } else if warm, rng.nextUnit() < profile.lieRate {
            accuracy = rng.uniform(2, 5)
        }
        let d = (offset.x * offset.x + offset.y * offset.y).squareRoot()
        guard d > 0 else { return (p, accuracy) }
        let q = Geodesic.wgs84.direct(from: p, azimuth: atan2(offset.x, offset.y) * 180 / .pi, distance: d).coordinate
        return (q, accuracy)
    }
}
