/// An ellipsoid of revolution (oblate when `flattening > 0`), the figure of the Earth.
///
/// ```swift
/// let e = Ellipsoid.wgs84
/// e.meridianRadius(atLatitude: 45)        // ≈ 6 367 381.8 m
/// ```
///
/// Holds the defining constants and the derived ones the geodesic code needs. The geodesic
/// algorithms (``Geodesic``) are accurate for |flattening| ≤ 1/50; WGS84 is 1/298.26.
public struct Ellipsoid: Sendable, Hashable {
    /// Equatorial radius `a` in metres.
    public let equatorialRadius: Double
    /// Flattening `f = (a − b) / a`.
    public let flattening: Double

    /// Creates an ellipsoid from its equatorial radius (metres) and flattening.
    public init(equatorialRadius: Double, flattening: Double) {
        self.equatorialRadius = equatorialRadius
        self.flattening = flattening
    }

    /// WGS84: a = 6 378 137 m, f = 1/298.257223563.
    public static let wgs84 = Ellipsoid(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Polar semi-axis `b = a (1 − f)` in metres.
    public var polarRadius: Double { equatorialRadius * (1 - flattening) }
    /// First eccentricity squared, `e² = f (2 − f)`.
    public var eccentricitySquared: Double { flattening * (2 - flattening) }

    /// Radius of curvature of the meridian, `M = a (1 − e²) / (1 − e² sin²φ)^(3/2)`, metres.
    public func meridianRadius(atLatitude latitude: Double) -> Double {
        let e2 = eccentricitySquared
        let s = sincosDegrees(latitude).sin
        let w = (1 - e2 * s * s).squareRoot()
        return equatorialRadius * (1 - e2) / (w * w * w)
    }

    /// Radius of curvature in the prime vertical, `N = a / (1 − e² sin²φ)^(1/2)`, metres.
    public func primeVerticalRadius(atLatitude latitude: Double) -> Double {
        let s = sincosDegrees(latitude).sin
        return equatorialRadius / (1 - eccentricitySquared * s * s).squareRoot()
    }

    /// The smallest radius of curvature anywhere on the ellipsoid, `a (1 − e²)` (the meridian
    /// at the equator) for an oblate ellipsoid. Every curve on the surface that is a geodesic
    /// has curvature at most `1 / minimumRadiusOfCurvature` as a space curve.
    public var minimumRadiusOfCurvature: Double {
        flattening >= 0
            ? equatorialRadius * (1 - eccentricitySquared)
            : polarRadius * polarRadius / equatorialRadius
    }
}
