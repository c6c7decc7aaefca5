/// A local east / north plane around an origin, metres, on the WGS84 ellipsoid: an
/// equirectangular projection scaled by the ellipsoid's radii of curvature at the origin
/// (the meridian radius M for north, the prime-vertical radius N cos φ for east).
///
/// ```swift
/// let proj = LocalProjection(origin: centre)
/// let (east, north) = proj.project(p)            // metres from the origin
/// let q = proj.unproject(east: 100, north: -50)   // back to a coordinate
/// ```
///
/// Exact at the origin, linear, and its own inverse (`unproject(project(p)) == p` up to
/// rounding). **Accuracy**: distances measured in the plane between points within `d` of
/// the origin differ from geodesic distances by a relative error of at most about
/// `1.5·(d / 6 371 km)·(1 + |tan φ₀|)`; tested: ≤ 0.16 % at d = 10 km, |φ₀| ≤ 80°, and
/// ≤ 0.016 % at d = 1 km (see docs/geodesy.md). Good for maps, polygon edges and short
/// offsets; not for long distances (use ``Geodesic``) or within a few kilometres of a pole,
/// where longitudes converge.
public struct LocalProjection: Sendable, Hashable {
    /// The point that maps to (0, 0).
    public let origin: Coordinate
    /// Metres per radian of latitude at the origin (the meridian radius M).
    public let metersPerRadianNorth: Double
    /// Metres per radian of longitude at the origin (N cos φ₀; 0 at a pole).
    public let metersPerRadianEast: Double

    /// A projection centred on `origin`.
    public init(origin: Coordinate) {
        self.origin = origin
        let e = Ellipsoid.wgs84
        metersPerRadianNorth = e.meridianRadius(atLatitude: origin.latitude)
        metersPerRadianEast =
            e.primeVerticalRadius(atLatitude: origin.latitude)
            * sincosDegrees(origin.latitude).cos
    }

    /// East and north offsets of `point` from the origin, metres. Longitude differences are
    /// taken the short way round (across the antimeridian when that is shorter).
    @inlinable
    public func project(_ point: Coordinate) -> (east: Double, north: Double) {
        var dl = point.longitude - origin.longitude
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        return (
            dl * (Double.pi / 180) * metersPerRadianEast,
            (point.latitude - origin.latitude) * (Double.pi / 180) * metersPerRadianNorth
        )
    }

    /// The coordinate at `east`, `north` metres from the origin (latitude clamped to
    /// [-90, 90]; at a pole, where east is degenerate, the origin's longitude is kept).
    public func unproject(east: Double, north: Double) -> Coordinate {
        let lat = origin.latitude + north / metersPerRadianNorth * (180 / Double.pi)
        let dl = metersPerRadianEast > 0 ? east / metersPerRadianEast * (180 / Double.pi) : 0
        return Coordinate(uncheckedLatitude: max(-90, min(90, lat)), longitude: origin.longitude + dl)
    }
}
