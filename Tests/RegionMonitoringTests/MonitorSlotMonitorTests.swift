import Foundation
import Geodesy
import Geofencing
import RegionPlanner
import Testing

@testable import RegionMonitoring

@Suite("MonitorSlotMonitor: RegionPlanner on a Monitor")
struct MonitorSlotMonitorTests {
    func circle(_ id: String, north: Double, radius: Double = 100, trigger: InitialTrigger = []) -> Region {
        var r = Region.circle(identifier: id, center: offset(north), radius: radius)
        r.initialTrigger = trigger
        return r
    }

    /// A monitor "catalogue" on a device with 3 region slots, one of them taken by a location
    /// manager's region "home".
    static func catalogueBesideHome() async throws -> Monitor {
        let device = makeDevice { $0.regionLimit = 3 }
        let (manager, _) = await manager(on: device)
        await manager.startMonitoring(for: region("home"))
        return try await Monitor("catalogue", device: device)
    }

    @Test("the per-app limit, flagged by Monitor.add, becomes SlotMonitorError.slotLimitExceeded")
    func limit() async throws {
        let monitor = try await Self.catalogueBesideHome()
        let slots = await MonitorSlotMonitor(monitor: monitor)
        #expect(slots.slotCapacity == 2)
        try await slots.register(circle("a", north: 0))
        try await slots.register(circle("b", north: 1_000))
        await #expect(throws: SlotMonitorError.slotLimitExceeded(capacity: 2, identifier: "c")) {
            try await slots.register(circle("c", north: 2_000))
        }
        #expect(await monitor.identifiers == ["a", "b"], "the refused condition is not kept")
        #expect(await slots.registeredIdentifiers == ["a", "b"])
        try await slots.register(circle("a", north: 500)) // replacing needs no new slot
        await slots.unregister(identifier: "b")
        try await slots.register(circle("c", north: 2_000))
        #expect(await monitor.identifiers == ["a", "c"])
    }

    @Test("the capacity leaves out the monitor's own conditions refused at the limit (they hold no slot)")
    func capacityIgnoresRefusedConditions() async throws {
        let monitor = try await Self.catalogueBesideHome()
        for (i, id) in ["a", "b", "c", "d"].enumerated() {
            await monitor.add(.circular(center: offset(Double(i) * 1_000), radius: 100), identifier: id)
        }
        #expect(await monitor.record(for: "d")?.lastEvent.state == .unmonitored) // c and d are refused
        let slots = await MonitorSlotMonitor(monitor: monitor)
        #expect(slots.slotCapacity == 2, "home holds 1 of 3 slots; a and b hold the other 2")
    }

    @Test("the simulated device reports events at once: event latency 0, unless the app states one")
    func eventLatency() async throws {
        let device = makeDevice { _ in }
        #expect(await MonitorSlotMonitor(monitor: try await Monitor("m", device: device)).eventLatency == 0)
        #expect(
            await MonitorSlotMonitor(monitor: try await Monitor("n", device: device), eventLatency: 60).eventLatency
                == 60)
    }

    @Test("conditions the device cannot monitor are rejected, not registered")
    func rejected() async throws {
        let device = makeDevice { $0.maximumRegionMonitoringDistance = 1_000 }
        let slots = await MonitorSlotMonitor(monitor: try await Monitor("m", device: device))
        await #expect(throws: SlotMonitorError.self) {
            try await slots.register(circle("huge", north: 0, radius: 5_000))
        }
        let square = Polygon(exterior: [offset(0, 0), offset(0, 10), offset(10, 10), offset(10, 0)])
        let multi = Region(identifier: "multi", shape: .multiPolygon([square]))
        await #expect(throws: SlotMonitorError.self) { try await slots.register(multi) }
        #expect(await slots.registeredIdentifiers.isEmpty)
        #expect(await slots.monitor.identifiers.isEmpty)
    }

    @Test("registered while inside: silent unless initialTrigger asks for the entry; state reads the record")
    func initialDetermination() async throws {
        let device = makeDevice()
        let slots = await MonitorSlotMonitor(monitor: try await Monitor("m", device: device))
        try await slots.register(circle("quiet", north: 0, radius: 500))
        try await slots.register(circle("tier", north: 0, radius: 500, trigger: .enter))
        #expect(await slots.state(of: "quiet") == .unknown)
        try await device.feed(stride(from: 0.0, through: 30, by: 5).map { fix($0, paris) })
        let events = slots.takeEvents()
        #expect(events.map(\.regionID) == ["tier"])
        #expect(events.first?.kind == .enter && events.first?.isInitial == true)
        #expect(await slots.state(of: "quiet") == .inside)
        #expect(await slots.state(of: "nope") == .unknown)
        try await device.feed(walkOut(start: 35))
        #expect(Set(slots.takeEvents().map(\.regionID)) == ["quiet", "tier"], "a real exit is reported for both")
        #expect(slots.takeEvents().isEmpty, "taken once")
    }

    @Test("a RegionPlanner serves 40 regions through 20 slots of a Monitor, every entry delivered once, in order")
    func plannerEndToEnd() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("catalogue", device: device)
        let slots = await MonitorSlotMonitor(monitor: monitor)
        let regions = (0..<40).map { circle("shop-\($0)", north: 1_000 + Double($0) * 1_000, radius: 300) }
        let source = PlannerSource(prefix: "s.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        try await planner.start(at: fix(0, paris))
        var entered: [String] = []
        var most = 0
        var probes = 0
        for s in 0...4_200 { // 10 m/s due north for 42 km
            let f = fix(Double(s), offset(Double(s) * 10))
            if slots.locationUpdatesRequested { // a re-plan waits for this fix
                probes += 1
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            try await device.receive(.fix(f))
            for e in slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
            most = max(most, await device.monitoredRegionCount)
        }
        #expect(entered == regions.map(\.identifier))
        #expect(most <= 20, "never more than the device's limit")
        let statistics = await planner.statistics
        #expect(statistics.replans > 1)
        #expect(statistics.replansWithoutGuarantee == 0)
        #expect(probes == statistics.replans - 1, "one fix asked for per re-plan after the first")
    }

    @Test("after a relaunch the adapter answers for the regions an earlier launch registered")
    func relaunchReadsTheMonitor() async throws {
        let device = makeDevice()
        let first = await MonitorSlotMonitor(monitor: try await Monitor("catalogue", device: device))
        try await first.register(circle("a", north: 0, radius: 500))
        try await first.register(circle("b", north: 5_000))
        try await device.feed(stride(from: 0.0, through: 30, by: 5).map { fix($0, paris) })
        await first.monitor.close()
        let again = await MonitorSlotMonitor(monitor: try await Monitor("catalogue", device: device))
        #expect(await again.registeredIdentifiers == ["a", "b"])
        #expect(await again.state(of: "a") == .inside)
        #expect(await again.state(of: "b") == .outside)
        await again.unregister(identifier: "b")
        #expect(await again.monitor.identifiers == ["a"])
        await again.setLocationUpdates(true)
        #expect(again.locationUpdatesRequested)
    }
}
