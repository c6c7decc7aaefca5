import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// Relaunches in any mode: the planner is discarded at random moments of the clustered drive
/// (most of them in hybrid mode, four right after its own engines confirmed a transition) and
/// restored from its store; the monitor — the operating system — keeps running.
@Suite(.drive) struct RelaunchEquivalenceTests {
    /// Eight random fix indices (fixed seed) spread over the drive.
    static func randomIndices(count: Int, in n: Int, seed: UInt64) -> Set<Int> {
        var rng = SplitMix64(seed: seed)
        var out = Set<Int>()
        while out.count < count { out.insert(Int(rng.uniform(1, Double(n - 1)))) }
        return out
    }

    @Test(
        "12 relaunches of the clustered drive in any mode, 4 right after a hybrid confirmation: exactly the whole-catalogue engine's events, none repeated",
        .longTier)
    func relaunchesInAnyMode() async throws {
        let route = DriveEquivalenceTests.wholeRoute1s
        var options = PlannerHarness.Options()
        options.relaunchBefore = Self.randomIndices(count: 8, in: route.fixes.count, seed: 3_232)
        options.relaunchAfterHybridEvents = [2, 57, 400, 1_500]
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(
            DriveEquivalenceTests.summary("clustered, 1 s, 12 relaunches in any mode, events only", r)
                + ", relaunch modes \(r.relaunchModes.map(\.rawValue))")
        #expect(r.relaunchModes.count == 12)
        #expect(r.relaunchModes.filter { $0 == .hybrid }.count >= 6, "most relaunches in hybrid mode")
        DriveEquivalenceTests.exact(r)
        let falseNotices = r.notices.filter {
            switch $0 {
            case .conditionBroken(.fixIntervalExceeded, _), .conditionBroken(.gap, _),
                .conditionBroken(.stateNotRestored, _):
                true
            default: false
            }
        }
        #expect(falseNotices.isEmpty, "no fix was missed, so nothing to report: \(falseNotices.prefix(3))")
    }

    @Test(
        "the saved hybrid state survives a file round trip, and a changed working-set region is reported, not silently guessed"
    )
    func fileRoundTripAndChangedRegion() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("planner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FilePlannerStore(directory: directory, monitorName: "m")
        let fixes = HybridModeTests.walk()
        let monitor = EngineSlotMonitor(subject: "walker", policy: .precise)
        var catalogue = try Catalogue(HybridModeTests.downtown.map { CatalogueEntry(region: $0) })
        func planner() throws -> RegionPlanner<EngineSlotMonitor> {
            try RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "d.", catalogue: catalogue)],
                sizing: HybridModeTests.sizing, policy: .precise, store: store)
        }
        var p = try planner()
        try await p.start(at: fixes[0])
        var i = 1
        while await p.status.mode != .hybrid, i < fixes.count {
            if monitor.locationUpdatesEnabled { _ = try await p.observe(fixes[i]) }
            for e in try monitor.process(fixes[i]) { _ = try await p.handle(e) }
            i += 1
        }
        for _ in 0..<20 {
            _ = try await p.observe(fixes[i])
            for e in try monitor.process(fixes[i]) { _ = try await p.handle(e) }
            i += 1
        }
        let soft = await p.softIdentifiers
        #expect(await p.status.mode == .hybrid)
        #expect(!soft.isEmpty)
        p = try planner()
        #expect(try await p.restore())
        #expect(await p.softIdentifiers == soft)
        #expect(await p.takeNotices().isEmpty)
        // A working-set region moved in the app's catalogue while the app was not running.
        let moved = soft.sorted()[0].dropFirst(2)
        var entry = try #require(catalogue.entry(String(moved)))
        if case .circle(let c, let radius) = entry.region.shape {
            entry.region = .circle(identifier: entry.identifier, center: c, radius: radius + 5)
        }
        try catalogue.insert(entry)
        p = try planner()
        #expect(try await p.restore())
        let notices = await p.takeNotices()
        #expect(notices.contains { if case .conditionBroken(.stateNotRestored, _) = $0 { true } else { false } })
    }
}
