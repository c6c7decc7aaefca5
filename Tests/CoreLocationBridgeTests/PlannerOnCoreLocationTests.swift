import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

@Suite("RegionPlanner on Core Location (fake) through LocationManagerSlotMonitor")
struct PlannerOnCoreLocationTests {
    /// `count` shops 1 km apart due north of Lyon, 300 m radius.
    func shops(_ count: Int) throws -> PlannerSource {
        let regions = (0..<count).map {
            Region.circle(identifier: "shop-\($0)", center: offset(1_000 + Double($0) * 1_000), radius: 300)
        }
        return PlannerSource(prefix: "s.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
    }

    let sizing = ReplanSizing(policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)

    /// Walks due north at 10 m/s through `seconds`, feeding the planner as an app does (the
    /// system's location updates when the planner asked for them, then the region events);
    /// returns the catalogue entries and the most regions the system held.
    func walk(
        _ app: CoreLocationApp, _ slots: LocationManagerSlotMonitor,
        _ planner: RegionPlanner<LocationManagerSlotMonitor>,
        seconds: ClosedRange<Int>
    ) async throws -> (entered: [String], most: Int) {
        var entered: [String] = []
        var most = 0
        for s in seconds {
            try await app.drive([fix(Double(s), offset(Double(s) * 10))])
            // As the app's loop does after each wake: positions first, then region events.
            for f in slots.takeLocations() {
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            for e in await slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
            most = max(most, await app.system.systemTable.count)
        }
        return (entered, most)
    }

    @Test("40 shops through 20 Core Location slots: every entry once, in order, never above the limit")
    func plannerEndToEnd() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(backend: app.backend))
        #expect(slots.slotCapacity == 20)
        let source = try shops(40)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        try await planner.start(at: fix(0, lyon))
        let (entered, most) = try await walk(app, slots, planner, seconds: 0...4_200)
        #expect(entered == (0..<40).map { "shop-\($0)" })
        #expect(most <= 20)
        #expect(await planner.statistics.replansWithoutGuarantee == 0)
        #expect(await planner.statistics.replans > 1)
        #expect(
            await app.system.isUpdatingLocation == slots.locationUpdatesRequested,
            "updates follow the planner's request")
    }

    @Test("no event with a recent position (each carries its region's own fix): every entry still once, in order")
    func eventsWithRegionFixesOnly() async throws {
        // The backend's clock runs a second ahead of the drive and a location counts as recent
        // for half a second: no event ever gets a position, only its region's fix.
        let clock = TestClock(t0)
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let app = await CoreLocationApp.launch(on: system, freshness: 0.5, now: { clock.now })
        let slots = await LocationManagerSlotMonitor(manager: app.manager, now: { clock.now })
        let planner = try RegionPlanner(monitor: slots, sources: [try shops(40)], sizing: sizing)
        try await planner.start(at: fix(0, lyon))
        var entered: [String] = []
        var regionFixes = 0
        for s in 0...4_200 {
            clock.set(t0.addingTimeInterval(Double(s) + 1))
            try await app.drive([fix(Double(s), offset(Double(s) * 10))])
            for f in slots.takeLocations() {
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            for e in await slots.takeEvents() {
                if e.fix.horizontalAccuracy ?? 0 > 5 { regionFixes += 1 }
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
        }
        #expect(regionFixes > 40, "the events carried region fixes")
        #expect(entered == (0..<40).map { "shop-\($0)" })
        #expect(await planner.statistics.replans > 1)
    }

    @Test("a relaunch restores the planner's regions from the system, within the limit, and planning goes on")
    func relaunchRestoresWithinTheLimit() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let store = MemoryPlannerStore()
        let source = try shops(40)
        let first = await CoreLocationApp.launch(on: system)
        let firstSlots = await LocationManagerSlotMonitor(manager: first.manager)
        let firstPlanner = try RegionPlanner(monitor: firstSlots, sources: [source], sizing: sizing, store: store)
        await first.manager.startMonitoring(for: circle("home", north: -5_000)) // the app's own region
        await first.backend.settle()
        try await firstPlanner.start(at: fix(0, lyon))
        let (before, _) = try await walk(first, firstSlots, firstPlanner, seconds: 0...1_500)
        let held = Set(await system.systemTable.map(\.identifier))
        #expect(held.count <= 20 && held.contains("home"))
        await system.terminateApp()

        let second = await CoreLocationApp.launch(on: system)
        let slots = await LocationManagerSlotMonitor(manager: second.manager)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing, store: store)
        #expect(try await planner.restore())
        #expect(Set(await system.systemTable.map(\.identifier)) == held, "nothing registered twice, nothing lost")
        let (after, most) = try await walk(second, slots, planner, seconds: 1_501...4_200)
        #expect(before + after == (0..<40).map { "shop-\($0)" })
        #expect(most <= 20)
        #expect(await system.systemTable.contains { $0.identifier == "home" }, "foreign regions are left alone")
    }

    @Test(
        "a relaunch without saved state: start() clears the earlier launch's planner regions and plans afresh within the limit"
    )
    func relaunchWithoutStateStartsAfresh() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let source = try shops(40)
        let first = await CoreLocationApp.launch(on: system)
        let firstSlots = await LocationManagerSlotMonitor(manager: first.manager)
        let firstPlanner = try RegionPlanner(monitor: firstSlots, sources: [source], sizing: sizing)
        await first.manager.startMonitoring(for: circle("home", north: -5_000))
        try await firstPlanner.start(at: fix(0, lyon))
        _ = try await walk(first, firstSlots, firstPlanner, seconds: 0...1_500)
        await system.terminateApp()

        let second = await CoreLocationApp.launch(on: system)
        let slots = await LocationManagerSlotMonitor(manager: second.manager)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        let here = fix(1_501, offset(15_010))
        try await planner.start(at: here)
        let held = await system.systemTable.map(\.identifier)
        #expect(held.count <= 20 && held.contains("home"))
        let planned = Set(held.filter { $0.hasPrefix("s.") })
        #expect(planned.contains("s.shop-14") && planned.contains("s.shop-15"), "the nearest shops at the new start")
        #expect(!planned.contains("s.shop-0"), "the earlier launch's far regions are gone")
        let (after, most) = try await walk(second, slots, planner, seconds: 1_502...4_200)
        #expect(after == (15..<40).map { "shop-\($0)" })
        #expect(most <= 20)
    }

    @Test("both adapters take Core Location's stated event latency from its backends; an app may state its own")
    func eventLatencyFromTheBackend() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        #expect(await LocationManagerSlotMonitor(manager: app.manager).eventLatency == 300)
        #expect(await LocationManagerSlotMonitor(manager: app.manager, eventLatency: 45).eventLatency == 45)
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: FakeConditionMonitors()))
        #expect(await MonitorSlotMonitor(monitor: monitor).eventLatency == ReplanSizing.coreLocationEventLatency)
    }

    @Test("the 21st registration throws before the system is asked; circles only")
    func slotCountCheckedFirst() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        for i in 0..<20 {
            try await slots.register(.circle(identifier: "r\(i)", center: offset(Double(i) * 1_000), radius: 100))
        }
        await #expect(throws: SlotMonitorError.slotLimitExceeded(capacity: 20, identifier: "r20")) {
            try await slots.register(.circle(identifier: "r20", center: lyon, radius: 100))
        }
        try await slots.register(.circle(identifier: "r0", center: lyon, radius: 200)) // replacing: no new slot
        #expect(await app.system.startMonitoringCalls == 21)
        let square = Polygon(exterior: [offset(0), offset(0, 10), offset(10, 10)])
        await #expect(throws: SlotMonitorError.self) {
            try await slots.register(Region(identifier: "poly", shape: .polygon(square)))
        }
        await #expect(throws: SlotMonitorError.self) {
            try await slots.register(.circle(identifier: "huge", center: lyon, radius: 1e20))
        }
    }

    @Test("a re-plan circle registered with the subject already outside asks its state and gives the initial exit")
    func initialExitFromStateAnswer() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        try await app.drive(stay(at: offset(5_000), from: 0, through: 30))
        var replan = Region.circle(identifier: "_planner.replan", center: lyon, radius: 1_000)
        replan.initialTrigger = .exit
        try await slots.register(replan)
        try await slots.register(.circle(identifier: "quiet", center: lyon, radius: 1_000))
        await app.backend.settle()
        #expect(await slots.takeEvents().isEmpty, "the system has not decided yet: unknown, asked again")
        try await app.drive(stay(at: offset(5_000), from: 35, through: 60))
        _ = await slots.takeEvents() // asks again
        await app.backend.settle()
        let events = await slots.takeEvents()
        #expect(events.map(\.regionID) == ["_planner.replan"])
        #expect(events.first?.kind == .exit && events.first?.isInitial == true)
        #expect(events.first?.fix.timestamp == t0.addingTimeInterval(60), "the fix is the system's last location")
    }

    @Test("state(of:) is the system's answer to requestState, awaited")
    func stateThroughContinuation() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        try await slots.register(.circle(identifier: "a", center: lyon, radius: 500))
        #expect(await slots.state(of: "a") == .unknown)
        try await app.drive(stay(at: lyon, from: 0, through: 30))
        #expect(await slots.state(of: "a") == .inside)
        #expect(await slots.state(of: "missing") == .unknown)
    }
}
