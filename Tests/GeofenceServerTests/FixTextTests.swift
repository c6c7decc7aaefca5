import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import Testing

/// The direct writers of the journal row and the last fix give exactly the bytes of the
/// generic JSON writer, so stored rows (and their replay) do not depend on which one wrote them.
@Suite("Journal and fix text written directly")
struct FixTextTests {
    static func fixes(seed: UInt64, count: Int) -> [LocationFix] {
        var state = seed
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        return (0..<count).map { i in
            LocationFix(
                subject: "d",
                coordinate: Coordinate(
                    uncheckedLatitude: -90 + 180 * next(), longitude: i % 5 == 0 ? 121 : -180 + 360 * next()),
                horizontalAccuracy: i % 3 == 0 ? nil : (i % 2 == 0 ? 8 : 100 * next()),
                timestamp: Date(timeIntervalSinceReferenceDate: i % 4 == 0 ? 820_000_000 : 820_000_000 + 1e6 * next()),
                speed: i % 2 == 0 ? nil : 30 * next(), course: i % 5 == 1 ? nil : (i % 7 == 0 ? 0 : 360 * next()))
        }
    }

    @Test(
        "journal text equals the generic writer's, for device ids that need escaping too",
        arguments: ["dev-1", "quote\"and\\slash", "tab\there", "шанхай-7", ""])
    func journal(_ device: String) throws {
        let f = Self.fixes(seed: UInt64(device.utf8.count) + 1, count: 40)
        let direct = FixJSON.journalText(device: device, fixes: f)
        #expect(direct == String(decoding: FixJSON.journalJSON(device: device, fixes: f).encoded(), as: UTF8.self))
        // And it reads back to the same fixes, bit for bit.
        let back = FixJSON.fixes(journal: try ServerJSON.parse(Data(direct.utf8)))
        #expect(back?.map(\.timestamp) == f.map(\.timestamp))
        #expect(back?.map(\.coordinate.latitude) == f.map(\.coordinate.latitude))
    }

    @Test("last-fix text equals the generic writer's")
    func lastFix() {
        for f in Self.fixes(seed: 7, count: 60) {
            #expect(FixJSON.text(f) == String(decoding: FixJSON.json(f).encoded(), as: UTF8.self))
        }
    }
}
