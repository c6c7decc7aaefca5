import Foundation
import Geodesy
import Geofencing
import RegionPlanner

/// Planner drives to run beside a server: each feeds a 20-slot planner and its monitor a fix a
/// second along a road through a dense grid of shops (a re-plan every few hundred metres), the
/// same hand-offs per fix as the planner's drive harnesses, until told to stop or until
/// `fixLimit` fixes.
struct BackgroundDrive: Sendable {
    /// A flag the measuring task sets to end the drives.
    final class Stop: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        var isSet: Bool { lock.withLock { stopped } }
        func set() { lock.withLock { stopped = true } }
    }

    var fixLimit = Int.max

    /// Runs `count` drives side by side (child tasks of the caller: on its executor preference);
    /// returns the fixes they fed in all.
    func run(count: Int, until stop: Stop) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for lane in 0..<count { group.addTask { try await drive(lane: lane, until: stop) } }
            return try await group.reduce(0, +)
        }
    }

    private static let origin = Coordinate(uncheckedLatitude: 48.1, longitude: 11.5)

    /// 60 × 10 shops of 40–80 m radius every 150 m, along and beside the road (9 km × 1.5 km).
    private static func shops() throws -> Catalogue {
        let projection = LocalProjection(origin: origin)
        var entries: [CatalogueEntry] = []
        for column in 0..<60 {
            for row in 0..<10 {
                let centre = projection.unproject(east: Double(column) * 150, north: Double(row - 5) * 150)
                let region = Region.circle(
                    identifier: "shop-\(column)-\(row)", center: centre, radius: 40 + Double((column + row) % 5) * 10)
                entries.append(CatalogueEntry(region: region))
            }
        }
        return try Catalogue(entries)
    }

    /// Fix `i` of a drive up and down the road at 15 m/s, a fix a second (in 2023: the planner
    /// refuses fixes from its clock's future).
    private static func fix(_ i: Int, lane: Int) -> LocationFix {
        let leg = 600 // fixes from one end of the road to the other
        let along = Double(i % (2 * leg) < leg ? i % leg : leg - i % leg) * 15
        let north = Double(lane % 3) * 20 - 20
        return LocationFix(
            subject: "car-\(lane)", coordinate: LocalProjection(origin: origin).unproject(east: along, north: north),
            horizontalAccuracy: 10, timestamp: Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))
    }

    private func drive(lane: Int, until stop: Stop) async throws -> Int {
        let monitor = EngineSlotMonitor(subject: "car-\(lane)", policy: .coreLocation)
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 80, maximumSpeed: 20, maximumFixInterval: 1, maximumAccuracy: 10)
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "biz.", catalogue: try Self.shops())], sizing: sizing)
        try await planner.start(at: Self.fix(0, lane: lane))
        var fed = 0
        while fed < fixLimit, !stop.isSet {
            let fix = Self.fix(fed + 1, lane: lane)
            _ = try await planner.observe(fix)
            for event in try monitor.process(fix) { _ = try await planner.handle(event) }
            fed += 1
        }
        return fed
    }
}
