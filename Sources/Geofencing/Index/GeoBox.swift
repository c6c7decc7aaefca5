import Foundation

/// A latitude / longitude box; longitudes may be unwrapped past ±180 for boxes that cross
/// the antimeridian (`minLon < -180` or `maxLon > 180`), and `maxLon - minLon` may reach 360.
struct GeoBox: Sendable, Hashable {
    var minLat: Double, maxLat: Double, minLon: Double, maxLon: Double

    /// The smallest radius of curvature of WGS84 (meridional, at the equator) rounded down,
    /// so that degree extents computed from it are conservative on the ellipsoid and on any
    /// sphere of radius ≥ it.
    static let conservativeRadius = 6_335_000.0

    /// A box certain to contain every point within `radius` metres (geodesic) of the centre.
    static func around(latitude lat: Double, longitude lon: Double, radius: Double) -> GeoBox {
        let dLat = radius / conservativeRadius * 180 / .pi * 1.000_001 + 1e-9
        let lo = lat - dLat
        let hi = lat + dLat
        if lo <= -90 || hi >= 90 {
            return GeoBox(minLat: max(-90, lo), maxLat: min(90, hi), minLon: -180, maxLon: 180)
        }
        let φmax = max(abs(lo), abs(hi)) * .pi / 180
        let dLon = dLat / cos(φmax)
        if dLon >= 180 { return GeoBox(minLat: lo, maxLat: hi, minLon: -180, maxLon: 180) }
        return GeoBox(minLat: lo, maxLat: hi, minLon: lon - dLon, maxLon: lon + dLon)
    }

    /// Degrees of latitude and longitude that `meters` can span at latitude `lat` (conservative).
    static func degreeSpan(meters: Double, atLatitude lat: Double) -> (lat: Double, lon: Double) {
        if meters <= 0 { return (0, 0) }
        let dLat = meters / conservativeRadius * 180 / .pi * 1.000_001
        let φ = min(89.999, abs(lat) + dLat) * .pi / 180
        return (dLat, min(360, dLat / cos(φ)))
    }
}
