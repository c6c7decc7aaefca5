import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// A slot monitor that records every call, throws past its capacity, and reports the
/// states the test sets. Test-only: one task drives it (the planner's calls and the test's
/// own reads alternate), hence `@unchecked Sendable`.
final class RecordingMonitor: SlotMonitor, @unchecked Sendable {
    let slotCapacity: Int
    var regions: [String: Region] = [:]
    var states: [String: RegionState] = [:]
    var registerCalls: [String] = []
    var unregisterCalls: [String] = []
    var maximumRegistered = 0
    var updates = false
    /// Refuse every registration (a device that cannot monitor them).
    var refuseAll = false

    init(slotCapacity: Int = 20) { self.slotCapacity = slotCapacity }

    func register(_ region: Region) throws(SlotMonitorError) {
        if refuseAll { throw .rejected(identifier: region.identifier, reason: "refused by the test") }
        if regions[region.identifier] == nil, regions.count >= slotCapacity {
            throw .slotLimitExceeded(capacity: slotCapacity, identifier: region.identifier)
        }
        regions[region.identifier] = region
        states[region.identifier] = .unknown
        registerCalls.append(region.identifier)
        maximumRegistered = max(maximumRegistered, regions.count)
    }

    func unregister(identifier: String) {
        regions[identifier] = nil
        states[identifier] = nil
        unregisterCalls.append(identifier)
    }

    func state(of identifier: String) -> RegionState { states[identifier] ?? .unknown }

    var registeredIdentifiers: [String] { Array(regions.keys) }

    func setLocationUpdates(_ enabled: Bool) { updates = enabled }

    var replanCircle: Region? { regions[RegionPlanner<RecordingMonitor>.replanIdentifier] }
}

@Suite struct PlannerBehaviourTests {
    static let frame = Frame(latitude: 52.52, longitude: 13.40)
    static let sizing = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 15,
        maximumFixInterval: 1, maximumAccuracy: 5)

    static func shops(_ n: Int, seed: UInt64) throws -> Catalogue {
        try Catalogue(
            Scenario.circles(
                count: n, frame: frame, width: 30_000, height: 30_000,
                radii: 50...300, seed: seed, prefix: "shop-"
            ).map { CatalogueEntry(region: $0) })
    }

    static func fix(_ c: Coordinate, at t: Double = 0) -> LocationFix {
        LocationFix(subject: "me", coordinate: c, horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: t))
    }

    static func exitEvent(_ id: String, at c: Coordinate) -> TransitionEvent {
        let fix = Self.fix(c, at: 100)
        return TransitionEvent(
            kind: .exit, regionID: id, subject: "me", fix: fix, time: fix.timestamp,
            crossedAt: fix.timestamp, isInitial: false)
    }

    @Test("the first plan registers the 19 nearest entries and a re-plan circle sized from the 20th")
    func firstPlan() async throws {
        let catalogue = try Self.shops(5_000, seed: 1)
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: catalogue)],
            sizing: Self.sizing)
        let here = Self.frame.coordinate(15_000, 15_000)
        try await planner.start(at: Self.fix(here))
        let nearest = catalogue.nearest(20, to: here)
        #expect(
            Set(monitor.regions.keys)
                == Set(nearest.prefix(19).map { "a." + $0.entry.identifier })
                .union([RegionPlanner<RecordingMonitor>.replanIdentifier]))
        let plan = try #require(await planner.plan)
        #expect(plan.nearestUnregistered == nearest[19].distance)
        #expect(plan.radius == Self.sizing.radius(nearestUnregistered: nearest[19].distance))
        guard case .circle(let center, let radius)? = monitor.replanCircle?.shape else {
            Issue.record("no circle")
            return
        }
        #expect(center == here && radius == plan.radius)
        #expect(monitor.replanCircle?.notifyOnEntry == false)
        let statistics = await planner.statistics
        #expect(statistics.slotsUsed == 20 && statistics.registrations == 19)
    }

    @Test("a re-plan keeps the regions that stay registered (no re-registration) and swaps the rest, never past 20")
    func replanKeepsStayingRegions() async throws {
        let catalogue = try Self.shops(5_000, seed: 2)
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: catalogue)],
            sizing: Self.sizing)
        let here = Self.frame.coordinate(15_000, 15_000)
        try await planner.start(at: Self.fix(here))
        let before = Set(monitor.regions.keys)
        monitor.registerCalls = []
        let there = Self.frame.coordinate(15_400, 15_000)
        _ = try await planner.handle(Self.exitEvent(RegionPlanner<RecordingMonitor>.replanIdentifier, at: there))
        #expect(monitor.updates, "the exit asks for the next fix")
        #expect(try await planner.observe(Self.fix(there, at: 101)).isEmpty)
        #expect(!monitor.updates, "and stops asking once it re-planned there")
        let after = Set(monitor.regions.keys)
        let want = Set(catalogue.nearest(19, to: there).map { "a." + $0.entry.identifier })
        #expect(after.subtracting([RegionPlanner<RecordingMonitor>.replanIdentifier]) == want)
        let stayed = before.intersection(after).subtracting([RegionPlanner<RecordingMonitor>.replanIdentifier])
        #expect(!stayed.isEmpty)
        #expect(Set(monitor.registerCalls).isDisjoint(with: stayed))
        #expect(monitor.maximumRegistered == 20)
        #expect(await planner.statistics.replans == 2)
    }

    @Test("a region the subject is inside is never dropped, even when 19 others are nearer")
    func insideRegionsArePinned() async throws {
        let catalogue = try Self.shops(5_000, seed: 3)
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: catalogue)],
            sizing: Self.sizing, allowsHybrid: false)
        try await planner.start(at: Self.fix(Self.frame.coordinate(15_000, 15_000)))
        let pinned = try #require(monitor.regions.keys.first { $0.hasPrefix("a.") })
        monitor.states[pinned] = .inside
        let far = Self.frame.coordinate(25_000, 25_000)
        _ = try await planner.observe(Self.fix(far, at: 2_000))
        #expect(monitor.regions[pinned] != nil)
        #expect(monitor.regions.count == 20)
        let others = Set(catalogue.nearest(18, to: far).map { "a." + $0.entry.identifier })
        #expect(others.isSubset(of: Set(monitor.regions.keys)))
    }

    @Test("two sources share the slots under their prefixes: the same identifier in both never clashes")
    func prefixes() async throws {
        let here = Self.frame.coordinate(15_000, 15_000)
        let a = try Catalogue(
            [CatalogueEntry(region: .circle(identifier: "shop-1", center: here, radius: 100))]
                + Self.shops(300, seed: 4).entries.filter { $0.identifier != "shop-1" })
        let b = try Catalogue(
            [CatalogueEntry(region: .circle(identifier: "shop-1", center: here, radius: 200))]
                + Self.shops(300, seed: 5).entries.filter { $0.identifier != "shop-1" })
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor,
            sources: [
                PlannerSource(prefix: "acme.", catalogue: a),
                PlannerSource(prefix: "bolt.", catalogue: b),
            ],
            sizing: Self.sizing)
        try await planner.start(at: Self.fix(here))
        #expect(monitor.regions["acme.shop-1"] != nil && monitor.regions["bolt.shop-1"] != nil)
        #expect(monitor.regions.count == 20)
        // The nearest 19 over both catalogues together.
        let merged =
            (a.nearest(19, to: here).map { ("acme." + $0.entry.identifier, $0.distance) }
            + b.nearest(19, to: here).map { ("bolt." + $0.entry.identifier, $0.distance) })
            .sorted { $0.1 < $1.1 }.prefix(19).map(\.0)
        #expect(
            Set(monitor.regions.keys).subtracting([RegionPlanner<RecordingMonitor>.replanIdentifier]) == Set(merged))
        let events = try await planner.handle(Self.exitEvent("bolt.shop-1", at: here))
        #expect(events.map(\.source) == ["bolt."] && events.map(\.identifier) == ["shop-1"])
        // Events for regions that are not the planner's are not reported.
        #expect(try await planner.handle(Self.exitEvent("other-app-region", at: here)).isEmpty)
    }

    @Test("clashing prefixes, the planner's own prefix and a bad slot count are refused")
    func configurationErrors() throws {
        let monitor = RecordingMonitor()
        let empty = Catalogue()
        #expect(throws: PlannerError.prefixClash("acme.", "acme.eu.")) {
            try RegionPlanner(
                monitor: monitor,
                sources: [
                    PlannerSource(prefix: "acme.", catalogue: empty),
                    PlannerSource(prefix: "acme.eu.", catalogue: empty),
                ],
                sizing: Self.sizing)
        }
        #expect(throws: PlannerError.prefixClash("_planner.x", "_planner.")) {
            try RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "_planner.x", catalogue: empty)],
                sizing: Self.sizing)
        }
        #expect(throws: PlannerError.self) {
            try RegionPlanner(monitor: monitor, sources: [], sizing: Self.sizing, slots: 21)
        }
        #expect(throws: PlannerError.self) {
            try RegionPlanner(monitor: monitor, sources: [], sizing: Self.sizing, slots: 1)
        }
    }

    @Test("the global switch unregisters every slot and silences events; switching on plans again")
    func globalSwitch() async throws {
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: try Self.shops(1_000, seed: 6))],
            sizing: Self.sizing)
        let here = Self.frame.coordinate(15_000, 15_000)
        try await planner.start(at: Self.fix(here))
        #expect(monitor.regions.count == 20)
        let some = try #require(monitor.regions.keys.first { $0.hasPrefix("a.") })
        await planner.setEnabled(false)
        #expect(monitor.regions.isEmpty)
        let (enabled, plan, used) = (await planner.isEnabled, await planner.plan, await planner.statistics.slotsUsed)
        #expect(!enabled && plan == nil && used == 0)
        #expect(try await planner.handle(Self.exitEvent(some, at: here)).isEmpty)
        #expect(try await planner.observe(Self.fix(here, at: 5)).isEmpty)
        #expect(monitor.regions.isEmpty)
        try await planner.start(at: Self.fix(here, at: 10))
        #expect(monitor.regions.count == 20)
    }

    @Test("fewer entries than slots: all registered, no re-plan circle needed")
    func smallCatalogue() async throws {
        let monitor = RecordingMonitor()
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: try Self.shops(7, seed: 7))],
            sizing: Self.sizing)
        try await planner.start(at: Self.fix(Self.frame.coordinate(1_000, 1_000)))
        #expect(monitor.regions.count == 7)
        #expect(monitor.replanCircle == nil)
        #expect(await planner.plan?.radius == .infinity)
    }

    @Test("regions other parts of the app registered are left alone and their slots are not used")
    func foreignRegionsAtStart() async throws {
        let monitor = RecordingMonitor(slotCapacity: 20)
        try monitor.register(.circle(identifier: "foreign", center: Self.frame.origin, radius: 100))
        try monitor.register(.circle(identifier: "a.stale", center: Self.frame.origin, radius: 100)) // an earlier run's
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: try Self.shops(100, seed: 8))],
            sizing: Self.sizing)
        try await planner.start(at: Self.fix(Self.frame.coordinate(5_000, 5_000)))
        #expect(monitor.regions["foreign"] != nil)
        #expect(monitor.regions["a.stale"] == nil, "a planner-owned region nobody knows is removed")
        #expect(monitor.regions.count == 20 && monitor.maximumRegistered <= 20)
    }

    @Test("a monitor that refuses a registration surfaces a typed error naming the region and keeping the cause")
    func monitorRefusal() async throws {
        let monitor = RecordingMonitor(slotCapacity: 20)
        let planner = try RegionPlanner(
            monitor: monitor, sources: [PlannerSource(prefix: "a.", catalogue: try Self.shops(100, seed: 8))],
            sizing: Self.sizing, allowsHybrid: false)
        try await planner.start(at: Self.fix(Self.frame.coordinate(5_000, 5_000)))
        monitor.refuseAll = true
        do {
            _ = try await planner.observe(Self.fix(Self.frame.coordinate(20_000, 20_000), at: 3_000))
            Issue.record("expected a registration to fail")
        } catch {
            guard case .registrationFailed(let id, let underlying) = error,
                case .rejected(let refused, let reason) = underlying
            else {
                Issue.record("\(error)")
                return
            }
            #expect(id == refused && id.hasPrefix("a.") && reason == "refused by the test")
        }
        #expect(monitor.regions.count <= 20)
    }
}
