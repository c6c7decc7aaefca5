import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// The slot limit, wakes, glitches, edits and the saved state, one rule per test.
@Suite struct PlannerLifecycleTests {
    static let frame = PlannerBehaviourTests.frame
    static let sizing = PlannerBehaviourTests.sizing
    typealias Planner = RegionPlanner<RecordingMonitor>

    static func planner(_ monitor: RecordingMonitor, store: (any PlannerStateStore)? = nil) throws -> Planner {
        try RegionPlanner(
            monitor: monitor,
            sources: [PlannerSource(prefix: "a.", catalogue: try PlannerBehaviourTests.shops(3_000, seed: 21))],
            sizing: Self.sizing, allowsHybrid: false, store: store)
    }

    static func fix(_ east: Double, _ north: Double, at t: Double) -> LocationFix {
        PlannerBehaviourTests.fix(frame.coordinate(east, north), at: t)
    }

    @Test(
        "EngineSlotMonitor throws on the 21st registration, replaces without a new slot, and keeps the engine's error")
    func engineMonitorLimit() throws {
        let monitor = EngineSlotMonitor(subject: "me", policy: .coreLocation)
        for i in 0..<20 { try monitor.register(.circle(identifier: "r\(i)", center: Self.frame.origin, radius: 100)) }
        #expect(throws: SlotMonitorError.slotLimitExceeded(capacity: 20, identifier: "r20")) {
            try monitor.register(.circle(identifier: "r20", center: Self.frame.origin, radius: 100))
        }
        try monitor.register(.circle(identifier: "r3", center: Self.frame.origin, radius: 300))
        monitor.unregister(identifier: "r0")
        do {
            try monitor.register(.circle(identifier: "bad", center: Self.frame.origin, radius: -1))
            Issue.record("expected a refusal")
        } catch {
            guard case .invalidRegion(let id, let underlying) = error, case .invalidRegion(_, "radius", _) = underlying
            else {
                Issue.record("\(error)")
                return
            }
            #expect(id == "bad")
        }
        #expect(monitor.maximumRegistered == 20 && monitor.registeredIdentifiers.count == 19)
    }

    @Test("a wake that finds the subject outside the re-plan region asks for a fix and re-plans there")
    func refreshAfterWake() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        let before = try #require(await planner.plan)
        monitor.states[Planner.replanIdentifier] = .outside
        try await planner.refresh()
        let requested = await planner.status.locationUpdatesRequested
        #expect(monitor.updates && requested)
        _ = try await planner.observe(Self.fix(15_900, 15_000, at: 60))
        let after = try #require(await planner.plan)
        #expect(after.center != before.center && !monitor.updates)
        #expect(await planner.statistics.replans == 2)
    }

    @Test("a fix far off the track moves no plan; the next fix that agrees with the track does")
    func glitchMovesNothing() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        _ = try await planner.handle(
            PlannerBehaviourTests.exitEvent(Planner.replanIdentifier, at: Self.frame.coordinate(15_500, 15_000)))
        _ = try await planner.observe(Self.fix(20_500, 15_000, at: 101)) // 5 km off, 1 s later
        #expect(await planner.plan?.center == Self.frame.coordinate(15_000, 15_000), "the glitch moved nothing")
        #expect(monitor.updates, "still waiting for a trusted fix")
        _ = try await planner.observe(Self.fix(15_520, 15_000, at: 102))
        #expect(await planner.plan?.center == Self.frame.coordinate(15_520, 15_000))
        let notices = await planner.takeNotices()
        #expect(notices.contains { if case .conditionBroken(.glitchRejected, _) = $0 { true } else { false } })
        #expect(await planner.statistics.glitchesRejected == 1)
    }

    @Test("a run of fixes coarser than the sizing assumed is reported once, and the plan is no longer guaranteed")
    func coarseFixesReported() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor) // sized for fixes of ±5 m
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        #expect(await planner.status.guaranteed)
        func observe(_ t: Double, accuracy: Double?) async throws {
            var fix = Self.fix(15_000 + t, 15_000, at: t)
            fix.horizontalAccuracy = accuracy
            _ = try await planner.observe(fix)
        }
        try await observe(1, accuracy: 5) // as stated
        try await observe(2, accuracy: 40)
        try await observe(3, accuracy: 60)
        try await observe(4, accuracy: 5)
        try await observe(5, accuracy: 2_000) // coarser than the policy uses: decides nothing, breaks nothing
        try await observe(6, accuracy: nil) // unknown: the policy assumes ±65 m
        let coarse = await planner.takeNotices().compactMap { n -> Double? in
            guard case .conditionBroken(.accuracyExceeded(let metres, let stated), _) = n, stated == 5 else {
                return nil
            }
            return metres
        }
        #expect(coarse == [40, 65], "one notice per run of coarse fixes")
        #expect(await !planner.status.guaranteed)
    }

    @Test(
        "an unchanged entry keeps its registration; a changed one is replaced in place; a removed one is unregistered")
    func edits() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        let id = try #require(monitor.regions.keys.first { $0.hasPrefix("a.") })
        let key = String(id.dropFirst(2))
        let entry = try #require(await planner.catalogue(prefix: "a.")?.entry(key))
        monitor.registerCalls = []
        monitor.states[id] = .inside
        try await planner.add([entry], to: "a.")
        #expect(monitor.registerCalls.isEmpty && monitor.states[id] == .inside, "unchanged: state kept")
        var moved = entry
        moved.region = .circle(identifier: key, center: Self.frame.coordinate(15_010, 15_000), radius: 120)
        try await planner.add([moved], to: "a.")
        #expect(monitor.registerCalls == [id] && monitor.states[id] == .unknown, "changed: replaced, state reset")
        try await planner.remove([key], from: "a.")
        #expect(monitor.regions[id] == nil && monitor.unregisterCalls.contains(id))
        await #expect(throws: PlannerError.unknownSource("b.")) { try await planner.remove(["x"], from: "b.") }
        let bad = CatalogueEntry(region: .circle(identifier: "neg", center: Self.frame.origin, radius: -1))
        await #expect(throws: PlannerError.self) { try await planner.add([bad], to: "a.") }
        #expect(await planner.catalogue(prefix: "a.")?.contains("neg") == false)
    }

    @Test("restore: the saved plan continues; stale planner regions go, foreign ones stay, their slots unused")
    func restoreReconciles() async throws {
        let monitor = RecordingMonitor()
        let store = MemoryPlannerStore()
        let first = try Self.planner(monitor, store: store)
        try await first.start(at: Self.fix(15_000, 15_000, at: 0))
        let plan = try #require(await first.plan)
        for id in plan.registered.sorted().prefix(2) { monitor.unregister(identifier: id) } // gone meanwhile
        // Unknown to the state.
        try monitor.register(.circle(identifier: "a.leftover", center: Self.frame.origin, radius: 50))
        try monitor.register(.circle(identifier: "other-app", center: Self.frame.origin, radius: 50))
        let second = try Self.planner(monitor, store: store)
        #expect(try await second.restore())
        #expect(await second.plan?.center == plan.center)
        #expect(monitor.regions["a.leftover"] == nil && monitor.regions["other-app"] != nil)
        #expect(await second.plan.map { Set($0.registered) } == plan.registered) // the plan as saved
        _ = try await second.observe(Self.fix(40_000, 40_000, at: 10_000)) // far: re-plan
        #expect(monitor.regions.count <= 20 && monitor.regions["other-app"] != nil)
        #expect(
            monitor.regions.keys.filter { $0.hasPrefix("a.") }.count == 18,
            "19 slots left: 18 regions and the re-plan circle")
        let nothing = try Self.planner(RecordingMonitor(), store: MemoryPlannerStore())
        #expect(try await !nothing.restore())
    }

    @Test("the file store writes the state beside the monitor's name and reads it back")
    func fileStore() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("planner-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = FilePlannerStore(directory: dir, monitorName: "catalogue")
        #expect(store.url.lastPathComponent == "catalogue.planner.json")
        #expect(try store.load() == nil)
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor, store: store)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        let saved = try #require(try store.load())
        #expect(saved.plan == (await planner.plan) && saved.mode == .slots && saved.registered.count == 19)
        // Every entry registered: an infinite radius and distance survive the round trip.
        let small = FilePlannerStore(directory: dir, monitorName: "small")
        let few = try RegionPlanner(
            monitor: RecordingMonitor(),
            sources: [PlannerSource(prefix: "a.", catalogue: try PlannerBehaviourTests.shops(7, seed: 7))],
            sizing: Self.sizing, store: small)
        try await few.start(at: Self.fix(1_000, 1_000, at: 0))
        #expect(try small.load()?.plan?.radius == .infinity)
        #expect(await few.storeErrors.isEmpty)
        try Data("{".utf8).write(to: store.url)
        let broken = try Self.planner(monitor, store: store)
        await #expect(throws: PlannerError.self) { _ = try await broken.restore() }
    }

    @Test("a delayed event carrying an old fix re-plans at the newest fix, not at the old one")
    func delayedEvent() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        _ = try await planner.observe(Self.fix(15_400, 15_000, at: 200)) // the app knows this fix
        // The re-plan region's exit, delivered late, carries a fix from before it.
        _ = try await planner.handle(
            PlannerBehaviourTests.exitEvent(Planner.replanIdentifier, at: Self.frame.coordinate(15_300, 15_000)))
        #expect(monitor.updates, "asks for the next fix")
        _ = try await planner.observe(Self.fix(15_410, 15_000, at: 201)) // 10 m/s: within the 15 m/s bound
        let center = await planner.plan?.center
        let statistics = await planner.statistics
        #expect(center == Self.frame.coordinate(15_410, 15_000), "\(String(describing: center)) \(statistics)")
    }

    @Test("absurd fixes are refused with a typed error naming the field, and change nothing")
    func absurdFixes() async throws {
        let monitor = RecordingMonitor()
        let planner = try Self.planner(monitor)
        try await planner.start(at: Self.fix(15_000, 15_000, at: 0))
        let plan = await planner.plan
        var nan = Self.fix(15_000, 15_000, at: 10)
        nan.coordinate = Coordinate(uncheckedLatitude: .nan, longitude: 13)
        var future = Self.fix(15_000, 15_000, at: 1e20)
        future.subject = String(repeating: "x", count: 100_000)
        var lying = Self.fix(15_000, 15_000, at: 11)
        lying.horizontalAccuracy = -.infinity
        for bad in [nan, future, lying] {
            do {
                _ = try await planner.observe(bad)
                Issue.record("accepted \(bad.timestamp)")
            } catch {
                guard case .invalidFix(.invalidFix(_, let field, _)) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(["latitude", "timestamp", "horizontalAccuracy"].contains(field))
            }
        }
        #expect(await planner.plan == plan)
        // A real fix still counts afterwards.
        _ = try await planner.observe(Self.fix(40_000, 40_000, at: 10_000))
        #expect(await planner.plan?.center == Self.frame.coordinate(40_000, 40_000))
    }
}
