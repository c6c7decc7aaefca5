import Foundation
import Geodesy

/// A seeded model of positioning error, so simulated fixes look like a phone's.
///
/// - **Correlated noise**: each axis (east, north) is a first-order Gauss–Markov process,
///   `eₖ = φ·eₖ₋₁ + σ·√(1−φ²)·n`, `φ = exp(−Δt/τ)`, so consecutive fixes err alike, as
///   real GPS does (multipath and atmosphere change over tens of seconds).
/// - **Jumps**: with probability ``jumpProbability`` per fix, a fix is thrown 100–500 m
///   (``jumpRange``) in a random direction — one bad fix, not a drift.
/// - **Reported accuracy**: about 1.5·σ plus jitter; a jump fix keeps reporting the
///   nominal accuracy with probability ``lyingProbability`` (accuracy that lies).
///
/// Two presets follow the device's Wi-Fi switch: ``wifiAssisted`` (σ 5 m) and ``gpsOnly``
/// (σ 15 m, the poorer accuracy with Wi-Fi off). Same seed, same errors.
public struct GPSErrorModel: Sendable, Hashable, Codable {
    /// Standard deviation of the correlated noise per axis, metres.
    public var sigma: Double
    /// Correlation time τ of the noise, seconds.
    public var correlationTime: Double
    /// Probability that a fix is a jump.
    public var jumpProbability: Double
    /// Jump distance range, metres.
    public var jumpRange: ClosedRange<Double>
    /// Probability that a jump fix reports the nominal accuracy instead of the truth.
    public var lyingProbability: Double

    public init(
        sigma: Double, correlationTime: Double = 30, jumpProbability: Double = 0,
        jumpRange: ClosedRange<Double> = 100...500, lyingProbability: Double = 0.5
    ) {
        self.sigma = sigma
        self.correlationTime = correlationTime
        self.jumpProbability = jumpProbability
        self.jumpRange = jumpRange
        self.lyingProbability = lyingProbability
    }

    /// Wi-Fi assisted positioning in the open: σ 5 m.
    public static let wifiAssisted = GPSErrorModel(sigma: 5, correlationTime: 30)
    /// GPS / cell only (Wi-Fi off): σ 15 m.
    public static let gpsOnly = GPSErrorModel(sigma: 15, correlationTime: 60)
    /// No error at all (for tests that need exact positions).
    public static let perfect = GPSErrorModel(sigma: 0, correlationTime: 1)

    /// The preset matching the device's settings (Wi-Fi on or off).
    public static func forDevice(_ settings: DeviceSettings) -> GPSErrorModel {
        settings.wifiEnabled ? .wifiAssisted : .gpsOnly
    }
}

/// The error process of one simulated receiver (stateful: call ``next(dt:)`` once per fix).
struct GPSErrorProcess {
    var model: GPSErrorModel
    var rng: SplitMix64
    var east = 0.0, north = 0.0
    var started = false

    init(model: GPSErrorModel, seed: UInt64) {
        self.model = model
        self.rng = SplitMix64(seed: seed)
    }

    /// Offset (east, north, metres) and reported accuracy for a fix `dt` seconds after the last.
    mutating func next(dt: Double) -> (east: Double, north: Double, accuracy: Double, isJump: Bool) {
        let s = model.sigma
        if !started {
            east = s * rng.nextGaussian()
            north = s * rng.nextGaussian()
            started = true
        } else {
            let phi = exp(-max(0, dt) / max(1e-9, model.correlationTime))
            let k = s * (1 - phi * phi).squareRoot()
            east = phi * east + k * rng.nextGaussian()
            north = phi * north + k * rng.nextGaussian()
        }
        let nominal = max(3, 1.5 * s + abs(rng.nextGaussian()) * 0.3 * s)
        if model.jumpProbability > 0, rng.nextUnit() < model.jumpProbability {
            let d =
                model.jumpRange.lowerBound + rng.nextUnit() * (model.jumpRange.upperBound - model.jumpRange.lowerBound)
            let a = rng.nextUnit() * 2 * .pi
            let lies = rng.nextUnit() < model.lyingProbability
            return (east + d * sin(a), north + d * cos(a), lies ? nominal : d, true)
        }
        return (east, north, nominal, false)
    }
}
