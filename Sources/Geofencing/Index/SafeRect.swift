import Foundation

/// A latitude / longitude rectangle (degrees, half-open) that no region's indexed box
/// overlaps: a subject whose fix falls in it can be inside no region except those it already
/// tracks, so the engine skips the index query.
///
/// The index computes one around the point of every plain point query
/// (``RegionIndex/pointQuery(lat:lon:safe:_:)``) from the entries it scans anyway: it starts
/// as the intersection of the point's cells (a region whose box overlaps none of them has
/// no entry there and cannot contain a point of the rectangle) and is cut, entry by entry,
/// to exclude each quantised (outward-rounded) box, keeping the larger remaining area. The
/// edges are then pulled in by one quantisation step, so rounding in a later query's cell
/// arithmetic cannot put a point of the rectangle into an excluded box.
///
/// It stays valid while no region is added (the engine keeps one per subject and drops it
/// when the region stamp moves): removing regions only empties space, and an index rebuild
/// re-quantises boxes that still contain every point inside their regions.
struct SafeRect: Sendable, Equatable {
    var minLat: Double, maxLat: Double, minLon: Double, maxLon: Double

    /// Contains no point.
    static let empty = SafeRect(minLat: .infinity, maxLat: -.infinity, minLon: .infinity, maxLon: -.infinity)
    /// Contains every point (the start of an intersection).
    static let everything = SafeRect(minLat: -.infinity, maxLat: .infinity, minLon: -.infinity, maxLon: .infinity)

    /// A rectangle around (`lat`, `lon`) all of whose points are less than `meters` away
    /// along the ellipsoid (a little less, to absorb the 0.1 % error of the engine's
    /// chord-bound distances).
    ///
    /// Bound used: from the centre, go along the meridian to the other point's latitude, then
    /// along that parallel. The meridian part is at most Δφ × a / √(1 − e²) (the largest
    /// meridional radius of curvature, at the poles); the parallel part at most
    /// Δλ × a·cos φ / √(1 − e²) with φ the rectangle's latitude nearest the equator. Each
    /// half-width spends half of the distance.
    static func within(meters: Double, ofLatitude lat: Double, longitude lon: Double) -> SafeRect {
        let d = meters * 0.998 - 0.01
        guard d > 0 else { return .empty }
        let maxRadius = 6_378_137.0 / (1 - 6.694_379_990_141_317e-3).squareRoot() // a / √(1 − e²)
        let hLat = d / 2 / maxRadius * (180 / .pi)
        let nearEquator = max(0, abs(lat) - hLat)
        let parallel = maxRadius * cos(nearEquator * .pi / 180)
        let hLon = parallel > 1 ? d / 2 / parallel * (180 / .pi) : 360
        return SafeRect(minLat: lat - hLat, maxLat: lat + hLat, minLon: lon - hLon, maxLon: lon + hLon)
    }

    @inline(__always) func contains(lat: Double, lon: Double) -> Bool {
        lat >= minLat && lat < maxLat && lon >= minLon && lon < maxLon
    }

    @inline(__always) mutating func formIntersection(_ o: SafeRect) {
        minLat = max(minLat, o.minLat)
        maxLat = min(maxLat, o.maxLat)
        minLon = max(minLon, o.minLon)
        maxLon = min(maxLon, o.maxLon)
    }
}
