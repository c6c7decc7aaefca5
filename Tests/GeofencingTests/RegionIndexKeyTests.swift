import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// Regression: in release builds the cell keys that `RegionIndex.forEachCell` passed for the
/// second and later rows of a column lost their level and column bits, so a region inserted
/// one by one (the index's dynamic part) was invisible from every cell but the first, and
/// `geofence simulate -c release` missed events the debug build found.
@Suite("Region index cell keys")
struct RegionIndexKeyTests {
    static func decode(_ k: UInt64) -> (level: Int, x: Int, y: Int) {
        (Int(k >> 33), Int((k >> 16) & 0x1_FFFF), Int(k & 0xFFFF))
    }

    @Test("columns and rows per level: 360° and 180° over the cell size, rounded up, at every level")
    func gridSize() {
        for level in 0..<RegionIndex.levelCount {
            let c = RegionIndex.cellSize(level: level)
            #expect(RegionIndex.columns(level) == Int((360 / c).rounded(.up)), "level \(level)")
            #expect(RegionIndex.rows(level) == Int((180 / c).rounded(.up)), "level \(level)")
        }
    }

    @Test(
        "every cell a box touches gets the key of its own level, column and row",
        arguments: [0, 2, 5, 11])
    func keysEncodeTheirCell(level: Int) {
        let c = RegionIndex.cellSize(level: level)
        // A box spanning 2 × 3 cells around (48.05, 10.98).
        let lat = ((48.05 + 90) / c).rounded(.down) * c - 90
        let lon = ((10.98 + 180) / c).rounded(.down) * c - 180
        var seen: [(UInt64, Int, Int)] = []
        RegionIndex.forEachCell(
            level: level, minLat: lat + 0.5 * c, maxLat: lat + 2.5 * c,
            minLon: lon + 0.5 * c, maxLon: lon + 1.5 * c
        ) { k, x, y in
            seen.append((k, x, y))
        }
        #expect(seen.count == 6)
        for (k, x, y) in seen {
            let d = Self.decode(k)
            #expect(d.level == level && d.x == x && d.y == y, "key \(k) for cell (\(level), \(x), \(y))")
            #expect(k == RegionIndex.key(level: level, x: x, y: y))
        }
        #expect(Set(seen.map(\.0)).count == 6)
    }

    @Test("a circle added on its own is found from each cell row its box spans")
    func dynamicInsertSpanningTwoRows() throws {
        var engine = Engine(policy: .precise)
        let center = try Coordinate(latitude: 48.0483345, longitude: 10.9774894)
        try engine.add(.circle(identifier: "c", center: center, radius: 392.5))
        // The circle's box spans two rows of level-2 cells (boundary at 48.046875°); probe
        // just inside the circle on both sides of that row boundary.
        for p in [(48.0449, 10.9774894), (48.0470, 10.9774894), (48.0492315, 10.9824058), (48.0496792, 10.9811129)] {
            let point = try Coordinate(latitude: p.0, longitude: p.1)
            let inside = GeodesicCircle(center: center, radius: 392.5).contains(point)
            #expect(inside)
            #expect(engine.regions(containing: point) == ["c"], "point \(p)")
        }
    }
}
