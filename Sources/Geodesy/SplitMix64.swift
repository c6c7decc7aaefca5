#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#else
import Foundation
#endif

/// A small, fast, seedable random number generator (SplitMix64, Steele, Lea & Flood 2014).
///
/// Simulations, synthetic tracks, benchmarks and tests use it so that the same seed always
/// gives the same numbers on every platform, which `SystemRandomNumberGenerator` cannot.
/// It is not cryptographically secure.
///
/// ```swift
/// var rng = SplitMix64(seed: 42)
/// let u = rng.nextUnit()            // uniform in [0, 1)
/// let x = rng.uniform(-5, 5)        // uniform in [-5, 5)
/// let n = rng.nextGaussian()        // standard normal
/// let k = Int.random(in: 0..<10, using: &rng)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's whole state; equal states produce equal sequences.
    public private(set) var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), with 53 random bits.
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in [lo, hi).
    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * nextUnit() }

    /// Standard normal (Box–Muller, one value per call).
    public mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), 1e-300)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
