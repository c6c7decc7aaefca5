import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// The server-fed follower against one engine holding the whole catalogue, in a dense town
/// where the plan's 19 regions cannot cover the re-plan circle (issue 32, item 7).
@Suite(.drive) struct FollowerEquivalenceTests {
    static let drive = DenseTown.drive()

    static func exact(_ r: FollowerHarness.Result, minimumEvents: Int = 40) {
        #expect(r.missed.isEmpty, "missed: \(r.missed.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.extra.isEmpty, "extra: \(r.extra.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.followed.count == r.reference.count, "no event twice")
        #expect(r.crossedAtDifferences == 0)
        #expect(r.reference.count >= minimumEvents, "the drive must cross regions")
        #expect(r.maximumRegistered <= 20)
        #expect(r.errors.isEmpty, "\(r.errors.prefix(3))")
    }

    @Test("through a dense town: exactly the whole-catalogue engine's events, hybrid mode only near the town")
    func denseTown() async throws {
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        let r = try await FollowerHarness.run(server: server, fixes: Self.drive)
        let town = DenseTown.townShare(Self.drive)
        let near = DenseTown.townShare(Self.drive, radius: 4_000)
        print(
            "[scenario] follower, dense town, 1 s: \(r.summary); within 3 km of the town "
                + "\(String(format: "%.1f", 100 * town)) %, within 4 km \(String(format: "%.1f", 100 * near)) %")
        Self.exact(r)
        #expect(r.statistics.hybridEntries >= 1, "the town needs hybrid mode")
        // GPS only where it is needed: hybrid mode at most 10 points beyond the time in the town.
        #expect(r.hybridShare <= town + 0.10, "hybrid \(r.hybridShare), town \(town)")
    }

    @Test("with a monitor that may evaluate a fix first (a phone), the handovers keep a fix's clearance: exact")
    func monitorEvaluatesFirst() async throws {
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        var options = FollowerHarness.Options()
        options.monitorMayEvaluateFirst = true
        let r = try await FollowerHarness.run(server: server, fixes: Self.drive, options: options)
        print("[scenario] follower, dense town, 1 s, monitor may evaluate first: \(r.summary)")
        Self.exact(r)
    }

    @Test("without hybrid mode (the follower before it), the same drive misses events: the scenario is dense")
    func denseTownWithoutHybridMisses() async throws {
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        var options = FollowerHarness.Options()
        options.allowsHybrid = false
        let r = try await FollowerHarness.run(server: server, fixes: Self.drive, options: options)
        print("[scenario] follower, dense town, 1 s, no hybrid mode: \(r.summary)")
        #expect(!r.missed.isEmpty)
    }

    @Test(
        "12 relaunches through the dense town (file store), 4 right after a hybrid confirmation: exactly the whole-catalogue engine's events, none repeated"
    )
    func relaunches() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("follower-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        var options = FollowerHarness.Options()
        options.store = FileFollowerStore(directory: directory, name: "town")
        options.relaunchBefore = RelaunchEquivalenceTests.randomIndices(count: 8, in: Self.drive.count, seed: 3_207)
        options.relaunchAfterHybridEvents = [0, 3, 8, 14]
        let r = try await FollowerHarness.run(server: server, fixes: Self.drive, options: options)
        print("[scenario] follower, dense town, 1 s, 12 relaunches: \(r.summary)")
        #expect(r.relaunchModes.count == 12)
        #expect(r.relaunchModes.filter { $0 == .hybrid }.count >= 4, "relaunches in hybrid mode")
        Self.exact(r)
    }

    @Test("5 km glitches in and out of the town: exact, and no plan or working set is asked for at a glitch")
    func glitches() async throws {
        let indices = [150, 900, 1_400, 1_600, 1_900, 2_300, 2_800, 3_500]
        let fixes = DenseTown.drive(glitches: indices)
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        let r = try await FollowerHarness.run(server: server, fixes: fixes)
        print("[scenario] follower, dense town, 1 s, 8 glitches: \(r.summary)")
        Self.exact(r)
        let glitchPoints = indices.filter { $0 < fixes.count }.map { fixes[$0].coordinate }
        let atGlitch = r.requests.filter { q in glitchPoints.contains { $0 == q.point } }
        #expect(atGlitch.isEmpty, "asked at a glitch: \(atGlitch.count)")
        #expect(r.statistics.glitchesRejected > 0)
    }

    @Test("restored in hybrid mode, the follower evaluates the same regions with continuous updates on")
    func restoredInHybridMode() async throws {
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        let monitor = EngineSlotMonitor(subject: "car", policy: .coreLocation)
        let store = MemoryFollowerStore()
        func follower() -> ServerPlanFollower<EngineSlotMonitor> {
            ServerPlanFollower(
                monitor: monitor,
                source: ServerPlanSource(server: "http://stub", key: "k", device: "p", transport: server),
                store: store)
        }
        var f = follower()
        var i = 0
        while await f.mode != .hybrid || i < 1_500, i < Self.drive.count {
            if i == 0 || monitor.locationUpdatesEnabled { await f.observe(Self.drive[i]) }
            for e in try monitor.process(Self.drive[i]) { _ = await f.handle(e) }
            i += 1
        }
        let soft = await f.softIdentifiers
        #expect(!soft.isEmpty)
        #expect(await store.state?.mode == .hybrid)
        f = follower()
        #expect(await f.restore())
        #expect(await f.mode == .hybrid)
        #expect(await f.updatesRequested)
        #expect(await f.softIdentifiers == soft)
        #expect(await f.errors.isEmpty)

        // Engines that cannot be rebuilt (a region the saved set does not hold): said, not guessed.
        var broken = try #require(await store.state)
        broken.soft = SoftEvaluatorState(
            cohorts: [SoftCohortState(key: 0, triggers: ["nowhere": 0], engine: Data())], nextCohort: 1)
        await store.save(broken)
        f = follower()
        #expect(await f.restore())
        #expect(await f.mode == .slots)
        #expect(await f.softIdentifiers.isEmpty)
        #expect(await f.errors.count == 1)
    }

    @Test("a state saved before hybrid mode existed restores in slot mode and asks for a plan at the next fix")
    func olderStateRestoresInSlotMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("follower-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = FileFollowerStore(directory: directory, name: "old")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"plan":null,"registered":[],"replanRegistered":false}"#.utf8).write(to: file.url)
        let server = try PlanServerStub(regions: DenseTown.regions, sizing: DenseTown.sizing)
        let monitor = EngineSlotMonitor(subject: "car", policy: .coreLocation)
        let f = ServerPlanFollower(
            monitor: monitor,
            source: ServerPlanSource(server: "http://stub", key: "k", device: "p", transport: server), store: file)
        #expect(await f.restore())
        #expect(await f.mode == .slots)
        #expect(monitor.locationUpdatesEnabled, "a plan is due: the next fix is asked for")
        await f.observe(Self.drive[0])
        #expect(server.requests.count == 1)
    }
}
