#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Earth-centred, Earth-fixed (ECEF) Cartesian coordinates of a point on the WGS84
/// ellipsoid, metres: x towards (0°, 0°), y towards (0°, 90° E), z towards the north pole.
///
/// ```swift
/// let p = CartesianPoint(try Coordinate(latitude: 31.24, longitude: 121.5))
/// circle.contains(coordinate, cartesian: p)   // reuse p for many circles
/// ```
///
/// Used by ``GeodesicCircle`` for its chord bound; compute it once per point when testing
/// one point against many circles. Cost: one two-lane sin/cos (``sinCos(_:)``) and a
/// square root. Accuracy: a few nanometres (rounding). Heights are not modelled (points lie on the surface).
public struct CartesianPoint: Sendable, Hashable {
    public var x: Double, y: Double, z: Double

    /// The point on the WGS84 ellipsoid at `coordinate`.
    @inlinable
    public init(_ coordinate: Coordinate) {
        self.init(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// The point on the WGS84 ellipsoid at the given geodetic latitude and longitude (degrees).
    @inlinable
    public init(latitude: Double, longitude: Double) {
        let (s, c) = sinCos(SIMD2(latitude, longitude) * (Double.pi / 180))
        let sphi = s[0]
        let cphi = c[0]
        let a = 6_378_137.0
        let e2 = CartesianPoint.wgs84E2
        let nu = a / (1 - e2 * sphi * sphi).squareRoot()
        x = nu * cphi * c[1]
        y = nu * cphi * s[1]
        z = nu * (1 - e2) * sphi
    }

    /// Creates a point from ECEF components (metres).
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// e² of WGS84, f(2 − f) with f = 1/298.257223563, as a literal (a computed initial
    /// value would make every use a lazy-global check; a test pins it to the formula).
    @usableFromInline static let wgs84E2: Double = 0.006_694_379_990_141_316_5

    /// Squared straight-line (chord) distance to `other`, m².
    @inlinable
    public func squaredChord(to other: CartesianPoint) -> Double {
        let dx = x - other.x
        let dy = y - other.y
        let dz = z - other.z
        return dx * dx + dy * dy + dz * dz
    }
}
