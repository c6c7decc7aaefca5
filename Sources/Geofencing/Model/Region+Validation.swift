import Foundation
import Geodesy

extension Region {
    /// Checks the region; throws ``GeofencingError/invalidRegion(identifier:field:reason:)``
    /// naming the first bad field.
    public func validate() throws(GeofencingError) {
        func bad(_ field: String, _ reason: String) -> GeofencingError {
            .invalidRegion(identifier: identifier, field: field, reason: reason)
        }
        if identifier.isEmpty { throw bad("identifier", "is empty") }
        if let d = dwell {
            guard d.isFinite else { throw bad("dwell", "is not a finite number of seconds (\(d))") }
            guard d >= 0 else { throw bad("dwell", "is negative (\(d) s)") }
        }
        switch shape {
        case .circle(let center, let radius):
            try Region.check(center, field: "center", bad)
            guard radius.isFinite else { throw bad("radius", "is not a finite number (\(radius))") }
            guard radius > 0 else { throw bad("radius", "must be greater than 0 m (got \(radius))") }
            guard radius <= Region.maximumRadius else {
                throw bad("radius", "\(radius) m exceeds the maximum of \(Region.maximumRadius) m")
            }
        case .polygon(let p):
            try Region.check(p, prefix: "", bad)
        case .multiPolygon(let ps):
            if ps.isEmpty { throw bad("polygons", "is empty") }
            for (i, p) in ps.enumerated() { try Region.check(p, prefix: "polygons[\(i)].", bad) }
        }
    }

    private static func check(
        _ c: Coordinate, field: String,
        _ bad: (String, String) -> GeofencingError
    ) throws(GeofencingError) {
        guard c.latitude.isFinite, (-90.0...90.0).contains(c.latitude) else {
            throw bad("\(field).latitude", "is not a latitude in [-90, 90] (\(c.latitude))")
        }
        guard c.longitude.isFinite else {
            throw bad("\(field).longitude", "is not a finite number (\(c.longitude))")
        }
    }

    private static func check(
        _ p: Polygon, prefix: String,
        _ bad: (String, String) -> GeofencingError
    ) throws(GeofencingError) {
        let rings = [p.exterior] + p.holes
        let vertices = rings.reduce(0) { $0 + $1.count }
        guard vertices <= Region.maximumVertexCount else {
            throw bad(
                "\(prefix)exterior",
                "has \(vertices) vertices with its holes; a polygon holds at most \(Region.maximumVertexCount)")
        }
        func field(_ r: Int) -> String { r == 0 ? "\(prefix)exterior" : "\(prefix)holes[\(r - 1)]" }
        for (r, ring) in rings.enumerated() {
            let field = r == 0 ? "\(prefix)exterior" : "\(prefix)holes[\(r - 1)]"
            for (i, c) in ring.enumerated() { try check(c, field: "\(field)[\(i)]", bad) }
            let open = PreparedPolygon.openRing(ring)
            var distinct = Set<Coordinate>()
            for c in open { distinct.insert(c) }
            guard distinct.count >= 3 else {
                throw bad(field, "has \(distinct.count) distinct vertices; a ring needs at least 3")
            }
            let unwrapped = PreparedPolygon.unwrap(open, reference: nil)
            let lons = unwrapped.map(\.x)
            guard let lo = lons.min(), let hi = lons.max(), hi - lo < 360 else {
                throw bad(field, "winds around the globe; split it into parts")
            }
            guard abs(PreparedPolygon.planarArea(unwrapped)) > 1e-3 else {
                // The lobes of a ring that crosses itself (a bow-tie) cancel out: say what it is.
                if !isCollinear(unwrapped), let flaw = PreparedPolygon.simplicityFlaw([unwrapped]) {
                    throw bad(field, flaw.reason)
                }
                throw bad(field, "has zero area (its vertices are collinear)")
            }
        }
        // Rings unwrapped as the engine reads them (holes next to the outer ring).
        let outer = PreparedPolygon.unwrap(PreparedPolygon.openRing(p.exterior), reference: nil)
        let reference = outer.first?.x ?? 0
        let unwrapped =
            [outer] + p.holes.map { PreparedPolygon.unwrap(PreparedPolygon.openRing($0), reference: reference) }
        if let flaw = PreparedPolygon.simplicityFlaw(unwrapped) { throw bad(field(flaw.ring), flaw.reason) }
    }

    /// Whether every vertex of `ring` (unwrapped degrees) lies within a millimetre of the line
    /// through its first vertex and the vertex furthest from it.
    private static func isCollinear(_ ring: [SIMD2<Double>]) -> Bool {
        guard let first = ring.first else { return true }
        let k = SIMD2(111_319.49 * cos(first.y * .pi / 180), 110_574.0)
        let points = ring.map { ($0 - first) * k }
        guard let far = points.max(by: { ($0 * $0).sum() < ($1 * $1).sum() }), (far * far).sum() > 0 else {
            return true
        }
        let length = (far * far).sum().squareRoot()
        return points.allSatisfy { abs(far.x * $0.y - far.y * $0.x) / length < 1e-3 }
    }
}
