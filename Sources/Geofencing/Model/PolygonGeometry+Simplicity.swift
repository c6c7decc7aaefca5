import Foundation

// Validity of a polygon's rings beyond their vertices: no ring crosses itself or another
// ring, and every hole lies inside the outer ring and outside the other holes. Rings are
// the unwrapped (longitude, latitude) rings of ``PreparedPolygon`` (GeoJSON's straight edges).

extension PreparedPolygon {
    /// Why the rings (outer first, then holes; open, unwrapped) do not form a simple polygon,
    /// as (ring index, reason), or `nil` when they do.
    ///
    /// Edge pairs are found by a sweep over longitude (edges sorted by their west end, each
    /// compared with the edges that start before it ends): O(n log n + k) for n edges and k
    /// pairs whose longitude ranges overlap. k is at most ``maximumEdgePairTests`` (otherwise
    /// the polygon is refused as too complex to check), so a hostile polygon cannot make
    /// validation unbounded.
    static func simplicityFlaw(_ rings: [[SIMD2<Double>]]) -> (ring: Int, reason: String)? {
        struct Edge {
            var a: SIMD2<Double>
            var b: SIMD2<Double>
            var ring: Int
            var index: Int
            var count: Int
        }
        var edges: [Edge] = []
        for (r, given) in rings.enumerated() {
            // A repeated vertex is not an edge: drop consecutive duplicates first, so that the
            // edges on either side of it still count as neighbours.
            var ring: [SIMD2<Double>] = []
            for v in given where v != ring.last { ring.append(v) }
            while ring.count > 1, ring.first == ring.last { ring.removeLast() }
            for i in ring.indices {
                edges.append(Edge(a: ring[i], b: ring[(i + 1) % ring.count], ring: r, index: i, count: ring.count))
            }
        }
        edges.sort { min($0.a.x, $0.b.x) < min($1.a.x, $1.b.x) }
        var tests = 0
        for i in edges.indices {
            let e = edges[i]
            let east = max(e.a.x, e.b.x)
            var j = i + 1
            while j < edges.count, min(edges[j].a.x, edges[j].b.x) <= east {
                let f = edges[j]
                j += 1
                tests += 1
                if tests > maximumEdgePairTests {
                    return (
                        e.ring,
                        "is too complex to check (more than \(maximumEdgePairTests) edge pairs overlap in longitude)"
                    )
                }
                guard segmentsMeet(e.a, e.b, f.a, f.b) else { continue }
                if e.ring == f.ring {
                    // Neighbouring edges share their common vertex; only that is allowed.
                    let d = abs(e.index - f.index)
                    if d == 1 || d == e.count - 1, !collinearOverlap(e.a, e.b, f.a, f.b) { continue }
                    return (e.ring, "crosses itself (edges \(min(e.index, f.index)) and \(max(e.index, f.index)) meet)")
                }
                let (r, s) = (min(e.ring, f.ring), max(e.ring, f.ring))
                return (s, r == 0 ? "touches or crosses the outer ring" : "touches or crosses holes[\(r - 1)]")
            }
        }
        // No two rings meet, so each hole is wholly inside or wholly outside every other ring:
        // one vertex decides.
        guard rings.count > 1 else { return nil }
        for h in 1..<rings.count {
            guard let v = rings[h].first else { continue }
            if !ringContains(rings[0], v) { return (h, "is not inside the outer ring") }
            for other in 1..<rings.count where other != h {
                if let w = rings[other].first, ringContains(rings[h], w) {
                    return (other, "lies inside holes[\(h - 1)]; holes must not nest")
                }
            }
        }
        return nil
    }

    /// The most edge pairs ``simplicityFlaw(_:)`` compares: about 0.1 s of work. Real
    /// boundaries (a coastline of 100,000 vertices) need a few times their edge count.
    static let maximumEdgePairTests = 20_000_000

    /// Whether segments ab and cd share at least one point.
    static func segmentsMeet(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ d: SIMD2<Double>) -> Bool {
        let d1 = orientation(c, d, a)
        let d2 = orientation(c, d, b)
        let d3 = orientation(a, b, c)
        let d4 = orientation(a, b, d)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0, onSegment(c, d, a) { return true }
        if d2 == 0, onSegment(c, d, b) { return true }
        if d3 == 0, onSegment(a, b, c) { return true }
        if d4 == 0, onSegment(a, b, d) { return true }
        return false
    }

    /// Whether ab and cd are collinear and share more than one point.
    static func collinearOverlap(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>, _ d: SIMD2<Double>) -> Bool
    {
        guard orientation(a, b, c) == 0, orientation(a, b, d) == 0 else { return false }
        let axis = abs(b.x - a.x) >= abs(b.y - a.y) ? 0 : 1
        let (lo1, hi1) = (min(a[axis], b[axis]), max(a[axis], b[axis]))
        let (lo2, hi2) = (min(c[axis], d[axis]), max(c[axis], d[axis]))
        return min(hi1, hi2) > max(lo1, lo2)
    }

    private static func orientation(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Double {
        let v = (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
        return v
    }

    private static func onSegment(_ p: SIMD2<Double>, _ q: SIMD2<Double>, _ r: SIMD2<Double>) -> Bool {
        min(p.x, q.x) <= r.x && r.x <= max(p.x, q.x) && min(p.y, q.y) <= r.y && r.y <= max(p.y, q.y)
    }

    /// Even-odd test of `v` against one ring.
    static func ringContains(_ ring: [SIMD2<Double>], _ v: SIMD2<Double>) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i]
            let b = ring[j]
            if (a.y > v.y) != (b.y > v.y), v.x < (b.x - a.x) * (v.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
