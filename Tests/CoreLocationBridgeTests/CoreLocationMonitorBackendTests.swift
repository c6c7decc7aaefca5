import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

@Suite("CoreLocationMonitorBackend: Monitor on CLMonitor (fake)", .timeLimit(.minutes(1)))
struct CoreLocationMonitorBackendTests {
    func shop(_ north: Double, radius: Double = 300) -> MonitorCondition {
        .circular(center: offset(north), radius: radius)
    }

    @Test("changes are reported with the system's date; a first state equal to the assumed one is not news")
    func assumedStateAndDates() async throws {
        let system = FakeConditionMonitors()
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        await monitor.add(shop(0), identifier: "assumed", assuming: .unsatisfied)
        await monitor.add(shop(0), identifier: "fresh")
        var events = monitor.events.makeAsyncIterator()
        for f in stay(at: offset(5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80) {
            try await system.move(to: f)
        }
        let first = await events.next()
        #expect(first?.identifier == "fresh" && first?.state == .unsatisfied, "unknown → unsatisfied is news")
        let a = try #require(await events.next())
        let b = try #require(await events.next())
        #expect(Set([a.identifier, b.identifier]) == ["assumed", "fresh"])
        #expect(a.state == .satisfied && b.state == .satisfied)
        #expect(
            a.date == b.date && a.date > t0.addingTimeInterval(35), "the confirmation time on the track, not delivery")
        #expect(await monitor.record(for: "assumed")?.lastEvent.state == .satisfied)
    }

    @Test("a condition added before permission starts when it arrives: its state then is reported once")
    func conditionsStartWithPermission() async throws {
        let system = FakeConditionMonitors(authorization: .notDetermined)
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        await monitor.add(shop(0), identifier: "shop", assuming: .unsatisfied)
        await monitor.add(shop(10_000), identifier: "far", assuming: .unsatisfied)
        for f in stay(at: offset(5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80) {
            try await system.move(to: f)
        }
        #expect(await system.sentCount == 0, "nothing reaches an app without permission")
        #expect(await monitor.record(for: "shop")?.lastEvent.state == .unsatisfied)
        await system.setAuthorization(.authorizedWhenInUse)
        #expect(await system.sentCount == 0, "when-in-use: no events in the background")
        await system.setAuthorization(.authorizedAlways)
        var events = monitor.events.makeAsyncIterator()
        let e = try #require(await events.next())
        #expect(e.identifier == "shop" && e.state == .satisfied && e.date > t0.addingTimeInterval(35))
        #expect(await system.sentCount == 1, "far stayed as assumed: not news")
        #expect(await monitor.record(for: "shop")?.lastEvent.state == .satisfied)
    }

    @Test("while permission is withdrawn, changes are held; a round trip meanwhile is not news, a lasting change is")
    func permissionWithdrawn() async throws {
        let system = FakeConditionMonitors()
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        await monitor.add(shop(0), identifier: "a", assuming: .unsatisfied)
        await monitor.add(shop(3_000), identifier: "b", assuming: .unsatisfied)
        var events = monitor.events.makeAsyncIterator()
        for f in stay(at: lyon, from: 0, through: 40) { try await system.move(to: f) }
        #expect(await events.next()?.state == .satisfied) // a, delivered
        // Withdrawn while the device leaves a and comes back: a round trip is not news.
        await system.setAuthorization(.denied)
        let roundTrip = stay(at: offset(6_000), from: 45, through: 90) + stay(at: lyon, from: 95, through: 140)
        for f in roundTrip { try await system.move(to: f) }
        await system.setAuthorization(.authorizedAlways)
        #expect(await system.sentCount == 1)
        // Withdrawn while it moves from a into b: both changes last, each is reported once.
        await system.setAuthorization(.restricted)
        for f in stay(at: offset(3_000), from: 145, through: 190) { try await system.move(to: f) }
        #expect(await system.sentCount == 1)
        await system.setAuthorization(.authorizedAlways)
        let first = try #require(await events.next())
        let second = try #require(await events.next())
        #expect(first.identifier == "a" && first.state == .unsatisfied)
        #expect(second.identifier == "b" && second.state == .satisfied)
        #expect(await system.sentCount == 3)
    }

    @Test("the 21st condition is kept unmonitored with conditionLimitExceeded, the system is not asked, the rest work")
    func twentyFirstCondition() async throws {
        let system = FakeConditionMonitors()
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system, now: { t0 }))
        for i in 0..<20 { await monitor.add(shop(Double(i) * 2_000), identifier: "s\(i)", assuming: .unsatisfied) }
        await monitor.add(shop(100_000), identifier: "late", assuming: .unsatisfied)
        var events = monitor.events.makeAsyncIterator()
        #expect(
            await events.next()
                == MonitorEvent(identifier: "late", state: .unmonitored, date: t0, diagnostics: .conditionLimitExceeded)
        )
        #expect(await system.monitoredCount == 20)
        #expect(await monitor.identifiers.count == 21)
        #expect(await monitor.record(for: "late")?.lastEvent.conditionLimitExceeded == true)
        await monitor.add(shop(2_000, radius: 400), identifier: "s1", assuming: .unsatisfied) // replacing: allowed
        for f in stay(at: offset(50_000), from: 0, through: 30) + stay(at: offset(6_000), from: 35, through: 80) {
            try await system.move(to: f)
        }
        let entry = await events.next()
        #expect(entry?.identifier == "s3" && entry?.state == .satisfied)
    }

    @Test("conditions Core Location cannot monitor are kept unmonitored with conditionUnsupported")
    func unsupported() async throws {
        let system = FakeConditionMonitors()
        let monitor = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system, now: { t0 }))
        await monitor.add(
            .polygon(exterior: [offset(0), offset(0, 10), offset(10, 10)], holes: []), identifier: "poly")
        await monitor.add(.beacon(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), identifier: "beacon")
        await monitor.add(shop(0, radius: .infinity), identifier: "inf")
        var events = monitor.events.makeAsyncIterator()
        for id in ["poly", "beacon", "inf"] {
            #expect(
                await events.next()
                    == MonitorEvent(identifier: id, state: .unmonitored, date: t0, diagnostics: .conditionUnsupported))
        }
        #expect(await system.monitoredCount == 0)
        #expect(await monitor.identifiers == ["poly", "beacon", "inf"])
    }

    @Test("invalid and duplicate monitor names are refused as on the simulated device")
    func names() async throws {
        let backend = CoreLocationMonitorBackend(service: FakeConditionMonitors())
        await #expect(throws: MonitoringError.invalidName("_x")) { try await Monitor("_x", backend: backend) }
        let open = try await Monitor("shops", backend: backend)
        await #expect(throws: MonitoringError.monitorAlreadyOpen(name: "shops")) {
            try await Monitor("shops", backend: backend)
        }
        await open.close()
        _ = try await Monitor("shops", backend: backend)
    }

    /// Holds each `openMonitor` until a second one arrives or the test lets it go, so that two
    /// opens of one name overlap inside the system call.
    actor GatedService: SystemMonitorService {
        let inner: FakeConditionMonitors
        var held: [CheckedContinuation<Void, Never>] = []
        var arrivals = 0
        init(_ inner: FakeConditionMonitors) { self.inner = inner }
        func openMonitor(named name: String) async -> any SystemConditionMonitor {
            arrivals += 1
            if arrivals >= 2 { release() } else { await withCheckedContinuation { held.append($0) } }
            return await inner.openMonitor(named: name)
        }
        func release() {
            for c in held { c.resume() }
            held = []
        }
    }

    @Test("a second open of a name while the first is still opening is refused; the first one's events flow")
    func concurrentOpens() async throws {
        let system = FakeConditionMonitors()
        let gate = GatedService(system)
        let backend = CoreLocationMonitorBackend(service: gate)
        func open() async -> Result<Monitor, MonitoringError> {
            do throws(MonitoringError) { return .success(try await Monitor("shops", backend: backend)) } catch {
                return .failure(error)
            }
        }
        async let first = open()
        while await gate.arrivals < 1 { await Task.yield() } // the first is inside the system call
        let second = await open()
        await gate.release()
        let monitor = try await first.get()
        guard case .failure(.monitorAlreadyOpen("shops")) = second else {
            Issue.record("the second open was not refused: \(second)")
            return
        }
        await monitor.add(shop(0), identifier: "home", assuming: .unsatisfied)
        var events = monitor.events.makeAsyncIterator()
        for f in stay(at: offset(5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80) {
            try await system.move(to: f)
        }
        #expect(await events.next()?.state == .satisfied)
    }

    @Test("events while the app is not running reach the relaunched app's monitor, in order, once")
    func relaunch() async throws {
        let system = FakeConditionMonitors()
        var monitor: Monitor? = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        await monitor?.add(shop(0), identifier: "home", assuming: .unsatisfied)
        await system.terminateApp()
        monitor = nil
        for f in stay(at: offset(5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80)
            + stay(at: offset(5_000), from: 85, through: 130)
        { try await system.move(to: f) }
        let relaunched = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        var events = relaunched.events.makeAsyncIterator()
        #expect(await events.next()?.state == .satisfied)
        #expect(await events.next()?.state == .unsatisfied)
        #expect(await relaunched.identifiers == ["home"])
        await relaunched.close()
        #expect(await events.next() == nil, "nothing twice")
    }

    @Test("MonitorSlotMonitor on CLMonitor: the limit throws, transitions carry the location source's fix")
    func slotMonitorOnCLMonitor() async throws {
        let system = FakeConditionMonitors()
        let backend = CoreLocationMonitorBackend(service: system, locationSource: { await system.lastFix })
        let monitor = try await Monitor("catalogue", backend: backend)
        let slots = await MonitorSlotMonitor(monitor: monitor)
        #expect(slots.slotCapacity == 20)
        for i in 0..<20 {
            try await slots.register(.circle(identifier: "r\(i)", center: offset(Double(i) * 2_000), radius: 300))
        }
        await #expect(throws: SlotMonitorError.slotLimitExceeded(capacity: 20, identifier: "r20")) {
            try await slots.register(.circle(identifier: "r20", center: lyon, radius: 300))
        }
        var events = monitor.events.makeAsyncIterator()
        for f in stay(at: offset(-5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80) {
            try await system.move(to: f)
        }
        while let e = await events.next(), e.identifier != "r0" || e.state != .satisfied {}
        await backend.settleTaps()
        let transitions = slots.takeEvents().filter { !$0.isInitial }
        #expect(transitions.map(\.regionID) == ["r0"])
        #expect(transitions.first?.kind == .enter)
        #expect(
            transitions.first?.fix.timestamp == t0.addingTimeInterval(80), "the source's fix (the fake's last position)"
        )
    }

    @Test("after a relaunch, MonitorSlotMonitor on CLMonitor answers for the regions an earlier launch registered")
    func slotMonitorAfterRelaunch() async throws {
        let system = FakeConditionMonitors()
        var first: MonitorSlotMonitor? = await MonitorSlotMonitor(
            monitor: try await Monitor("catalogue", backend: CoreLocationMonitorBackend(service: system)))
        try await first?.register(.circle(identifier: "a", center: lyon, radius: 500))
        try await first?.register(.circle(identifier: "b", center: offset(5_000), radius: 300))
        for f in stay(at: lyon, from: 0, through: 30) { try await system.move(to: f) }
        await system.terminateApp()
        first = nil
        let again = await MonitorSlotMonitor(
            monitor: try await Monitor("catalogue", backend: CoreLocationMonitorBackend(service: system)))
        #expect(again.slotCapacity == 20)
        #expect(await again.registeredIdentifiers == ["a", "b"])
        #expect(await again.state(of: "a") == .inside)
        #expect(await again.state(of: "b") == .outside)
    }

    @Test("after a relaunch, the first crossing of a condition an earlier launch added reaches the planner's tap")
    func relaunchedCrossingIsNotInitial() async throws {
        let system = FakeConditionMonitors()
        let earlier = CoreLocationMonitorBackend(service: system, locationSource: { await system.lastFix })
        var first: MonitorSlotMonitor? = await MonitorSlotMonitor(
            monitor: try await Monitor("catalogue", backend: earlier))
        try await first?.register(.circle(identifier: "a", center: lyon, radius: 500))
        for f in stay(at: lyon, from: 0, through: 30) { try await system.move(to: f) }
        await system.terminateApp()
        first = nil
        let backend = CoreLocationMonitorBackend(service: system, locationSource: { await system.lastFix })
        let again = await MonitorSlotMonitor(monitor: try await Monitor("catalogue", backend: backend))
        let sentBefore = await system.sentCount
        for f in stay(at: offset(5_000), from: 35, through: 80) { try await system.move(to: f) }
        while await backend.receivedCount < system.sentCount - sentBefore { await Task.yield() }
        await backend.settleTaps()
        let events = again.takeEvents()
        #expect(events.map(\.regionID) == ["a"], "the exit of a region the earlier launch registered")
        #expect(events.first?.kind == .exit)
        #expect(events.first?.isInitial == false)
    }

    @Test(
        "a RegionPlanner serves 40 shops through 20 CLMonitor conditions: every entry once, in order, never above the limit"
    )
    func plannerEndToEndOnCLMonitor() async throws {
        let system = FakeConditionMonitors()
        let backend = CoreLocationMonitorBackend(service: system, locationSource: { await system.lastFix })
        let slots = await MonitorSlotMonitor(monitor: try await Monitor("catalogue", backend: backend))
        let regions = (0..<40).map {
            Region.circle(identifier: "shop-\($0)", center: offset(1_000 + Double($0) * 1_000), radius: 300)
        }
        let source = PlannerSource(prefix: "s.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        try await planner.start(at: fix(0, lyon))
        var entered: [String] = []
        var most = 0
        for s in 0...4_200 {
            let f = fix(Double(s), offset(Double(s) * 10))
            if slots.locationUpdatesRequested {
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            try await system.move(to: f)
            while await backend.receivedCount < system.sentCount { await Task.yield() } // the relay has caught up
            await backend.settleTaps() // and the planner's transitions have their fix (slots.arrivals in an app)
            for e in slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
            most = max(most, await system.monitoredCount)
        }
        #expect(entered == regions.map(\.identifier))
        #expect(most <= 20)
        #expect(await planner.statistics.replansWithoutGuarantee == 0)
    }
}
