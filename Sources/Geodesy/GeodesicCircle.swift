#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A circle on the WGS84 ellipsoid: the points whose geodesic distance to `center` is at
/// most `radius` metres.
///
/// ```swift
/// let fence = GeodesicCircle(center: try Coordinate(latitude: 31.239394, longitude: 121.499781),
///                            radius: 2_000)
/// fence.contains(p)            // exact decision, usually without solving a geodesic
/// fence.signedDistance(to: p)  // metres, negative inside
/// fence.boundingBox            // for a spatial index
/// ```
///
/// **How `contains` stays exact yet cheap** (derivation in docs/geodesy.md):
/// 1. a conservative latitude / longitude box rejects far points with four comparisons;
/// 2. the straight-line chord `c` between the ECEF points bounds the geodesic distance `s`:
///    `c ≤ s ≤ 2R·asin(c / 2R)` with `R = a(1 − e²)`, the smallest radius of curvature of the
///    ellipsoid (a geodesic's curvature never exceeds 1/R). So `c > radius` means outside and
///    `c ≤ radius − radius³/(24R²)` means inside; the undecided band is about
///    `radius³ / (24 R²)` wide: 1 µm for 1 km, 1 mm for 10 km, 1 m for 100 km;
/// 3. only points inside that band (plus 1 µm for rounding) solve the exact inverse problem
///    (``Geodesic/inverse(_:_:)``, accurate to 15 nm).
///
/// Circles larger than 1,000 km skip step 2 and use the exact solution after the box.
/// Per-circle constants are computed in `init` (about 70 ns); `contains` costs about 5 ns
/// for points outside the box and about 40 ns inside it (release build, one core).
///
/// A negative or NaN radius gives an empty circle; use ``init(validatingCenter:radius:)`` to
/// reject such input with a typed error instead.
public struct GeodesicCircle: Sendable, Hashable {
    /// The centre.
    public let center: Coordinate
    /// Radius in metres (geodesic).
    public let radius: Double

    // Box: south…north, and |Δλ| ≤ halfWidth around center.longitude (≥ 180: all longitudes).
    @usableFromInline let south: Double
    @usableFromInline let north: Double
    @usableFromInline let halfWidth: Double
    @usableFromInline let centerPoint: CartesianPoint
    /// Squared chord below which the point is surely inside (−1: never).
    @usableFromInline let innerChord2: Double
    /// Squared chord above which the point is surely outside (+∞: never, i.e. no fast path).
    @usableFromInline let outerChord2: Double

    /// Smallest radius of curvature of WGS84, a(1 − e²), metres: `Ellipsoid.wgs84`'s
    /// ``Ellipsoid/minimumRadiusOfCurvature``, written as a literal (a computed initial value
    /// made every use in a hot loop go through a lazily initialised global's accessor).
    public static let minimumRadiusOfCurvature = 6_335_439.327_292_819_5
    /// Largest radius for which the chord bound is used, metres.
    public static let chordBoundLimit = 1_000_000.0
    /// Allowance for floating-point rounding in the chord, metres (actual errors are below
    /// 20 nm).
    public static let roundingAllowance = 1e-6

    /// How much longer than a chord `c` (metres) the geodesic between its ends can be:
    /// `2R·asin(c / 2R) − c` with `R` = ``minimumRadiusOfCurvature`` (docs/geodesy.md, the
    /// chord bound). For chords up to 0.05 · 2R (≈ 634 km), the odd series of `asin` to its
    /// x¹¹ term: it omits less than 1e-11 m there, and it is more precise than the
    /// difference of two nearly equal numbers for short chords; beyond, `asin` itself.
    @inlinable @inline(__always)
    public static func chordExcess(_ c: Double) -> Double {
        let twoR = 2 * minimumRadiusOfCurvature
        let x = c / twoR
        guard x <= 0.05 else { return twoR * asin(min(1, x)) - c }
        let x2 = x * x
        let series = 1.0 / 6 + x2 * (3.0 / 40 + x2 * (5.0 / 112 + x2 * (35.0 / 1_152 + x2 * (63.0 / 2_816))))
        return c * x2 * series
    }

    /// A circle of `radius` metres around `center`.
    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
        let lat0 = center.latitude
        if !(radius >= 0) { // negative or NaN: empty
            south = .infinity
            north = -.infinity
            halfWidth = -1
            innerChord2 = -1
            outerChord2 = -1
            centerPoint = CartesianPoint(x: 0, y: 0, z: 0)
            return
        }
        // Latitude: any path of length s changes latitude by at most s / min M (ds ≥ M dφ).
        let rMin = Self.minimumRadiusOfCurvature
        let dLat = (radius / rMin) * (180 / Double.pi) * (1 + 1e-12) + 1e-12
        south = lat0 - dLat
        north = lat0 + dLat
        // Longitude: ds ≥ N cos φ dλ ≥ a cos φ_far dλ along any path that stays in the box.
        let latFar = max(abs(south), abs(north))
        if latFar >= 90 || !radius.isFinite {
            halfWidth = 360
        } else {
            let c = cos(latFar * (Double.pi / 180))
            let w = (radius / (6_378_137 * c)) * (180 / Double.pi) * (1 + 1e-12) + 1e-12
            halfWidth = w >= 180 ? 360 : w
        }
        centerPoint = CartesianPoint(center)
        if radius <= Self.chordBoundLimit {
            let delta = Self.roundingAllowance
            let outer = radius + delta
            // 2R sin(r / 2R) ≥ r − r³ / (24 R²): a lower bound on the chord of an arc of length r.
            let inner = radius - radius * radius * radius / (24 * rMin * rMin) - delta
            outerChord2 = outer * outer
            innerChord2 = inner > 0 ? inner * inner : -1
        } else {
            outerChord2 = .infinity
            innerChord2 = -1
        }
    }

    /// A circle, with its radius checked.
    /// - Throws: ``GeodesyError/invalidRadius(_:)`` for a negative, NaN or infinite radius.
    public init(validatingCenter center: Coordinate, radius: Double) throws(GeodesyError) {
        guard radius.isFinite, radius >= 0 else { throw .invalidRadius(radius) }
        self.init(center: center, radius: radius)
    }

    /// A conservative latitude / longitude box holding the whole circle (its edges are at
    /// most about 0.7 % + 1e-12° outside the true extent; see docs/geodesy.md). Spans all
    /// longitudes when the circle may reach a pole; `west > east` when it crosses the
    /// antimeridian.
    public var boundingBox: GeoBoundingBox {
        if halfWidth < 0 { return GeoBoundingBox(south: 90, north: -90, west: 180, east: -180) }
        let s = max(-90, south)
        let n = min(90, north)
        if halfWidth >= 180 { return GeoBoundingBox(south: s, north: n, west: -180, east: 180) }
        let w = Coordinate.normalizedLongitude(center.longitude - halfWidth)
        var e = Coordinate.normalizedLongitude(center.longitude + halfWidth)
        if e == -180 { e = 180 }
        return GeoBoundingBox(south: s, north: n, west: w == 180 ? -180 : w, east: e)
    }

    /// Whether `point` is inside the circle or on its boundary (geodesic distance ≤ radius).
    /// Exact: agrees with ``Geodesic/inverse(_:_:)`` for every point.
    @inlinable
    public func contains(_ point: Coordinate) -> Bool {
        switch classifyWithBox(point) {
        case .outside: return false
        case .inside: return true
        case .undecided: return containsAfterBox(point, CartesianPoint(point))
        }
    }

    /// ``contains(_:)`` for a point whose ECEF position is already known (compute it once
    /// when testing one point against many circles).
    @inlinable
    public func contains(_ point: Coordinate, cartesian: CartesianPoint) -> Bool {
        switch classifyWithBox(point) {
        case .outside: return false
        case .inside: return true
        case .undecided: return containsAfterBox(point, cartesian)
        }
    }

    @usableFromInline enum Classification { case inside, outside, undecided }

    @inlinable @inline(__always)
    func classifyWithBox(_ point: Coordinate) -> Classification {
        let lat = point.latitude
        if lat < south || lat > north { return .outside }
        var dl = point.longitude - center.longitude
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        if abs(dl) > halfWidth { return .outside }
        return .undecided
    }

    @usableFromInline
    func containsAfterBox(_ point: Coordinate, _ p: CartesianPoint) -> Bool {
        switch classifyByChord(p) {
        case .inside: return true
        case .outside: return false
        case .undecided: return Geodesic.wgs84.inverse(center, point).distance <= radius
        }
    }

    /// The chord-bound step alone (no box, no exact fallback); `.undecided` in the band.
    @usableFromInline
    func classifyByChord(_ p: CartesianPoint) -> Classification {
        let c2 = p.squaredChord(to: centerPoint)
        if c2 > outerChord2 { return .outside }
        if c2 <= innerChord2 { return .inside }
        return .undecided
    }

    /// Signed distance from `point` to the boundary, metres: negative inside, positive
    /// outside, zero on it.
    ///
    /// The sign is always exact (as ``contains(_:)``). Far from the boundary the value comes
    /// from the chord bound, with an error of at most 0.1 % of the returned value; near the
    /// boundary (or beyond 1,000 km) it is the exact geodesic distance minus the radius
    /// (15 nm). Use ``exactSignedDistance(to:)`` when every digit matters.
    public func signedDistance(to point: Coordinate) -> Double {
        signedDistance(to: point, cartesian: CartesianPoint(point))
    }

    /// ``signedDistance(to:)`` for a point whose ECEF position is already known.
    public func signedDistance(to point: Coordinate, cartesian: CartesianPoint) -> Double {
        guard radius >= 0 else { return .infinity }
        let c = p2c(cartesian)
        if c <= Self.chordBoundLimit {
            let excess = Self.chordExcess(c)
            let estimate = c + excess / 2 - radius
            let error = excess / 2 + Self.roundingAllowance
            if error <= 1e-3 * abs(estimate) { return estimate }
        }
        return exactSignedDistance(to: point)
    }

    @inline(__always)
    private func p2c(_ p: CartesianPoint) -> Double { p.squaredChord(to: centerPoint).squareRoot() }

    /// Geodesic distance from the centre minus the radius, metres, from the exact inverse
    /// solution (15 nm).
    public func exactSignedDistance(to point: Coordinate) -> Double {
        Geodesic.wgs84.inverse(center, point).distance - radius
    }
}
