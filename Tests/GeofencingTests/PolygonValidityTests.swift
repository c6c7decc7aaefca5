import Foundation
import Geodesy
import Geofencing
import Testing

/// A polygon region is a simple polygon: rings that neither cross nor touch, holes inside their
/// outer ring and outside each other (issue 21). The same rule holds for the library, `simulate`
/// and the server, since all three call ``Region/validate()``.
@Suite("Polygon validity")
struct PolygonValidityTests {
    static func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        points.map { Coordinate(uncheckedLatitude: $0.1, longitude: $0.0) }
    }
    static let square = ring([(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)])

    static func field(_ region: Region) -> String? {
        do { try region.validate() } catch {
            if case .invalidRegion(_, let field, _) = error { return field }
        }
        return nil
    }

    static func polygon(_ exterior: [Coordinate], holes: [[Coordinate]] = []) -> Region {
        Region(identifier: "r", shape: .polygon(Polygon(exterior: exterior, holes: holes)))
    }

    @Test("a bow-tie with area (a ring that crosses itself) is refused")
    func bowTie() {
        #expect(Self.field(Self.polygon(Self.ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]))) == "exterior")
        // A ring that comes back to touch one of its own vertices.
        #expect(Self.field(Self.polygon(Self.ring([(0, 0), (2, 0), (2, 2), (1, 0), (0, 2), (0, 0)]))) == "exterior")
    }

    @Test("a symmetric bow-tie, whose lobes cancel to zero area, is refused as crossing itself, not as collinear")
    func symmetricBowTieSaysItCrossesItself() {
        let bowTie = Self.polygon(Self.ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)]))
        #expect(Self.reason(bowTie)?.contains("crosses itself") == true)
        let collinear = Self.polygon(Self.ring([(0, 0), (1, 0), (2, 0), (0, 0)]))
        #expect(Self.reason(collinear)?.contains("collinear") == true)
    }

    static func reason(_ region: Region) -> String? {
        do { try region.validate() } catch {
            if case .invalidRegion(_, _, let reason) = error { return reason }
        }
        return nil
    }

    @Test("a hole outside the shell, crossing it, nested in another hole, or touching it is refused")
    func holes() {
        let outside = Self.ring([(2, 2), (3, 2), (3, 3), (2, 2)])
        #expect(Self.field(Self.polygon(Self.square, holes: [outside])) == "holes[0]")
        let crossing = Self.ring([(0.5, 0.5), (1.5, 0.5), (0.5, 0.8), (0.5, 0.5)])
        #expect(Self.field(Self.polygon(Self.square, holes: [crossing])) == "holes[0]")
        let big = Self.ring([(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.1, 0.1)])
        let small = Self.ring([(0.4, 0.4), (0.6, 0.4), (0.6, 0.6), (0.4, 0.4)])
        #expect(Self.field(Self.polygon(Self.square, holes: [big, small])) == "holes[1]")
        let touching = Self.ring([(0, 0.5), (0.5, 0.4), (0.5, 0.6), (0, 0.5)])
        #expect(Self.field(Self.polygon(Self.square, holes: [touching])) == "holes[0]")
    }

    @Test("simple polygons pass: a square with a hole, a concave ring, repeated vertices, one across the antimeridian")
    func validPolygons() {
        let hole = Self.ring([(0.4, 0.4), (0.6, 0.4), (0.6, 0.6), (0.4, 0.4)])
        #expect(Self.field(Self.polygon(Self.square, holes: [hole])) == nil)
        #expect(Self.field(Self.polygon(Self.ring([(0, 0), (2, 0), (2, 2), (1, 1), (0, 2), (0, 0)]))) == nil)
        #expect(Self.field(Self.polygon(Self.ring([(0, 0), (1, 0), (1, 0), (1, 1), (0, 1), (0, 0)]))) == nil)
        #expect(
            Self.field(Self.polygon(Self.ring([(179.5, 0), (-179.5, 0), (-179.5, 1), (179.5, 1), (179.5, 0)]))) == nil)
        // Unclosed rings are the library's shorthand (the closing edge is implied).
        #expect(Self.field(Self.polygon(Self.ring([(0, 0), (1, 0), (1, 1), (0, 1)]))) == nil)
    }

    @Test("the engine refuses what validate() refuses")
    func engineRefuses() {
        var engine = Engine()
        #expect(throws: GeofencingError.self) {
            try engine.add(Self.polygon(Self.ring([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])))
        }
        #expect(engine.regionCount == 0)
    }

    @Test("a zig-zag of 20,000 vertices is checked in bounded time and passes; one more crossing edge fails")
    func largeRing() {
        var pts: [(Double, Double)] = []
        let n = 10_000
        for i in 0..<n { pts.append((Double(i) * 0.0001, i % 2 == 0 ? 0 : 0.00005)) }
        for i in (0..<n).reversed() { pts.append((Double(i) * 0.0001, 0.001 + (i % 2 == 0 ? 0 : 0.00005))) }
        pts.append(pts[0])
        #expect(Self.field(Self.polygon(Self.ring(pts))) == nil)
        var crossing = pts
        crossing[n + 10] = (crossing[n + 10].0, -0.001) // dips below the lower edge
        #expect(Self.field(Self.polygon(Self.ring(crossing))) == "exterior")
    }
}
