/// Geodesics on an ellipsoid of revolution: the shortest paths between two points, after
/// C. F. F. Karney, "Algorithms for geodesics", J. Geodesy 87, 43–55 (2013).
///
/// ```swift
/// let g = Geodesic.wgs84
/// let jfk = try Coordinate(latitude: 40.64, longitude: -73.78)
/// let lhr = try Coordinate(latitude: 51.47, longitude: -0.46)
/// let r = g.inverse(jfk, lhr)      // r.distance ≈ 5 554 747.7 m, r.azimuth1 ≈ 51.38°
/// let d = g.direct(from: jfk, azimuth: r.azimuth1, distance: r.distance)   // ≈ lhr
/// ```
///
/// - **Accuracy** (WGS84): series to order 6 in the third flattening, truncation error below
///   15 nm. Against GeographicLib on 4,700 fixture cases: distances within 4 nm, direct
///   positions within 14 nm, azimuths within 2.3e-8° (sub-metre lines aside); see
///   docs/geodesy.md.
/// - **Robustness**: the inverse problem always terminates (Newton's method on the azimuth,
///   falling back to bisection of a bracket that always holds the root); nearly antipodal,
///   coincident, polar, equatorial and meridional pairs are handled; results are never NaN
///   for valid ``Coordinate`` input.
/// - **Cost**: inverse O(1), typically 2–3 Newton steps, about 1 µs; direct about 0.5 µs
///   (release build, one core; see docs/geodesy.md).
/// - **Not provided**: areas (S12), geodesic lines with stored state, unrolled longitudes.
public struct Geodesic: Sendable, Hashable {
    /// The ellipsoid the geodesics live on.
    public let ellipsoid: Ellipsoid

    // Derived constants (Karney 2013, §2).
    let a: Double, f: Double, f1: Double, e2: Double, ep2: Double, n: Double, b: Double
    /// Tolerance for the "really short lines" shortcut of the starting guess.
    let etol2: Double
    let third: ThirdIntegralCoefficients

    /// A geodesic calculator for `ellipsoid`.
    public init(_ ellipsoid: Ellipsoid) {
        self.ellipsoid = ellipsoid
        a = ellipsoid.equatorialRadius
        f = ellipsoid.flattening
        f1 = 1 - f
        e2 = f * (2 - f)
        ep2 = e2 / (f1 * f1)
        n = f / (2 - f)
        b = a * f1
        etol2 = 0.1 * Tolerance.tol2 / (max(0.001, abs(f)) * min(1.0, 1 - f / 2) / 2).squareRoot()
        third = ThirdIntegralCoefficients(n: n)
    }

    /// Geodesics on WGS84.
    public static let wgs84 = Geodesic(.wgs84)

    enum Tolerance {
        static let tiny = Double.leastNormalMagnitude.squareRoot()
        static let tol0 = Double.ulpOfOne
        static let tol1 = 200 * tol0
        static let tol2 = tol0.squareRoot()
        static let tolb = tol0
        static let xthresh = 1000 * tol2
        /// Newton iterations before the solver switches to pure bisection.
        static let maxNewton = 20
        /// Hard cap on iterations: Newton plus enough bisections to reach full precision.
        static let maxIterations = maxNewton + Double.significandBitCount + 1 + 10
    }
}

/// The solution of the inverse geodesic problem between two points.
public struct InverseSolution: Sendable, Hashable {
    /// Geodesic (shortest) distance in metres, ≥ 0.
    public var distance: Double
    /// Forward azimuth at the first point, degrees clockwise from north, in (-180, 180].
    public var azimuth1: Double
    /// Forward azimuth at the second point (the direction of travel on arrival), degrees,
    /// in (-180, 180].
    public var azimuth2: Double
    /// Arc length on the auxiliary sphere, degrees (180° for antipodal points).
    public var arcLength: Double

    public init(distance: Double, azimuth1: Double, azimuth2: Double, arcLength: Double) {
        self.distance = distance
        self.azimuth1 = azimuth1
        self.azimuth2 = azimuth2
        self.arcLength = arcLength
    }
}

/// The solution of the direct geodesic problem.
public struct DirectSolution: Sendable, Hashable {
    /// The destination.
    public var coordinate: Coordinate
    /// Forward azimuth at the destination (direction of travel on arrival), degrees, in
    /// (-180, 180].
    public var azimuth2: Double

    public init(coordinate: Coordinate, azimuth2: Double) {
        self.coordinate = coordinate
        self.azimuth2 = azimuth2
    }
}

/// Maps -180 (and -0) to the (-180, 180] convention used for all published angles.
@inline(__always)
func publishedAngle(_ x: Double) -> Double {
    x == -180 ? 180 : x + 0
}
