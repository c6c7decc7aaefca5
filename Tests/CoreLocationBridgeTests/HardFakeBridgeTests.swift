import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

/// The bridge against fakes as hard as a device (docs/ios.md, "The Core Location behaviour the
/// bridge relies on"): each test is a way a phone is less kind than a call returning.
@Suite("The bridge through hard fakes: lagging tables, cancelled requests, late events", .timeLimit(.minutes(1)))
struct HardFakeBridgeTests {
    /// `count` shops 1 km apart due north of Lyon, 300 m radius.
    func shops(_ count: Int) throws -> PlannerSource {
        let regions = (0..<count).map {
            Region.circle(identifier: "shop-\($0)", center: offset(1_000 + Double($0) * 1_000), radius: 300)
        }
        return PlannerSource(prefix: "s.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
    }

    @Test("a full re-plan of 20 slots with monitoredRegions lagging leaks no slot and never stops planning")
    func fullReplanWithLaggingTable() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, regionTableLags: true)
        let app = await CoreLocationApp.launch(on: system)
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        let planner = try RegionPlanner(monitor: slots, sources: [try shops(60)], sizing: sizing)
        try await planner.start(at: fix(0, lyon))
        var entered: [String] = []
        var most = 0
        for s in 0...6_200 {
            try await app.drive([fix(Double(s), offset(Double(s) * 10))])
            for f in slots.takeLocations() {
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            for e in await slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
            #expect(slots.takeFailures().isEmpty, "no registration refused at \(s) s")
            most = max(most, await system.systemTable.count)
        }
        #expect(entered == (0..<60).map { "shop-\($0)" }, "every shop entered once, in order")
        #expect(most == 20, "all 20 slots used, never a 21st")
        #expect(await planner.statistics.replans > 1)

        // A full re-plan far away: every slot changes at once while the system's table still
        // lists the old twenty.
        let before = Set(await system.systemTable.map(\.identifier))
        try await planner.start(at: fix(6_201, offset(20_000)))
        let held = Set(await system.systemTable.map(\.identifier))
        #expect(held.count <= 20 && held.intersection(before).count <= 2, "the slots changed wholesale")
        #expect(Set(await slots.registeredIdentifiers) == held, "what the bridge counts is what the system holds")
        #expect(held.contains("s.shop-19"), "the new neighbourhood's shops")
        #expect(slots.takeFailures().isEmpty)
        #expect(!app.recorder.calls.contains { if case .fail = $0 { true } else { false } }, "nothing refused")
    }

    @Test("a requestLocation cancelled by startUpdatingLocation (no callback) does not hang: the wait times out")
    func cancelledLocationRequestTimesOut() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, locationRequestTiming: .nextPosition)
        let sleeper = ManualSleeper()
        let backend = await CoreLocationManagerBackend(
            system: system, locationFreshness: 60, now: { t0.addingTimeInterval(3_600) },
            sleep: { await sleeper.sleep($0) })
        try await system.move(to: fix(0, lyon)) // a stale last location: a one-shot request is needed
        async let location = backend.currentLocation()
        await sleeper.waitForSleepers(1)
        await backend.setLocationUpdates(true) // Core Location drops the pending request silently
        #expect(await system.cancelledLocationRequests == 1)
        await sleeper.advance(by: backend.timeouts.location)
        #expect(await location == nil, "answered nil after the timeout, not never")
    }

    @Test("a state request the system never answers times out as unknown")
    func unansweredStateRequestTimesOut() async throws {
        let system = NeverAnsweringSystem()
        let sleeper = ManualSleeper()
        let backend = await CoreLocationManagerBackend(system: system, sleep: { await sleeper.sleep($0) })
        let manager = await LocationManager(backend: backend)
        await manager.startMonitoring(for: circle("a"))
        async let state = backend.determineState(of: "a")
        await sleeper.waitForSleepers(1)
        await sleeper.advance(by: backend.timeouts.stateAnswer)
        #expect(await state == .unknown)
    }

    @Test("a region stopped or queried right after its start is found, though monitoredRegions lags")
    func stopAndQueryRightAfterStart() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, regionTableLags: true)
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("a"))
        #expect(await system.monitoredRegions.isEmpty, "the system's table has not caught up")
        #expect(await app.manager.monitoredRegions.map(\.identifier) == ["a"], "the backend's own table has")
        await app.manager.requestState(for: circle("a"))
        await app.backend.settle()
        #expect(
            await system.sent.contains(.didDetermineState(.unknown, identifier: "a")),
            "the system was asked, not answered for by a stale table")
        await app.manager.stopMonitoring(for: circle("a"))
        #expect(await system.systemTable.isEmpty, "stopped in the system, not leaked")
    }

    @Test("region events minutes late reach the delegate late, in order, and not before")
    func lateRegionEvents() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, regionEventDelay: 240)
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("shop"))
        try await app.drive(stay(at: offset(2_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 120))
        #expect(!app.recorder.calls.contains(.enter("shop")), "confirmed after ~20 s, not yet delivered")
        await system.advance(to: t0.addingTimeInterval(400))
        await app.backend.settle()
        let regionCalls = app.recorder.calls.filter { if case .auth = $0 { false } else { true } }
        #expect(regionCalls.suffix(2) == [.enter("shop"), .state("shop", .inside)])
    }

    @Test("with Precise Location off the backend says so, and no region event comes")
    func reducedAccuracy() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let app = await CoreLocationApp.launch(on: system)
        await system.setAccuracyAuthorization(.reducedAccuracy)
        #expect(await app.backend.accuracyAuthorization == .reducedAccuracy)
        await app.manager.startMonitoring(for: circle("shop"))
        try await app.drive(stay(at: offset(2_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 120))
        #expect(!app.recorder.calls.contains(.enter("shop")))
    }

    @Test("no CLMonitor name is opened twice, across invalidation and relaunches")
    func monitorNamesOpenedOnce() async throws {
        let system = FakeConditionMonitors()
        for launch in 0..<3 {
            let backend = CoreLocationMonitorBackend(service: system)
            let monitor = try await Monitor("shops", backend: backend)
            await monitor.add(
                .circular(center: lyon, radius: 300), identifier: "shop-\(launch)", assuming: .unsatisfied)
            await monitor.invalidate()
            let again = try await Monitor("shops", backend: backend)
            await again.add(.circular(center: lyon, radius: 300), identifier: "shop", assuming: .unsatisfied)
            await system.terminateApp()
        }
        #expect(await system.fatalErrors == [], "a device would have crashed")
    }

    @Test("an event that relaunches the app reaches its Monitor at once, while the planner's fix is still coming")
    func backgroundLaunchEventNotHeldByAFix() async throws {
        let system = FakeConditionMonitors()
        let first = try await Monitor("shops", backend: CoreLocationMonitorBackend(service: system))
        await first.add(.circular(center: lyon, radius: 300), identifier: "shop", assuming: .unsatisfied)
        await system.terminateApp()
        for f in stay(at: lyon, from: 0, through: 60) { try await system.move(to: f) } // entered while not running

        let gate = Gate()
        let backend = CoreLocationMonitorBackend(
            service: system,
            locationSource: {
                await gate.wait()
                return fix(60, lyon)
            })
        let monitor = try await Monitor("shops", backend: backend)
        let tapped = TransitionLog()
        await backend.setTransitionTap({ tapped.append($0) }, monitor: "shops")
        let received = Box()
        let reader = Task {
            for await event in monitor.events {
                received.set(event)
                return
            }
        }
        let delivered = await eventually { received.value != nil }
        #expect(delivered, "delivered without waiting for a fix")
        #expect(received.value?.state == .satisfied)
        await gate.open()
        await backend.settleTaps()
        #expect(tapped.events.map(\.regionID) == ["shop"], "the planner's tap still gets the transition")
        #expect(tapped.events.first?.fix.timestamp == t0.addingTimeInterval(60), "with the fix, once it came")
        reader.cancel()
    }

    @Test("the limit answered late by CLMonitor reaches the planner: the slot is dropped and a re-plan follows")
    func lateLimitReachesThePlanner() async throws {
        // The system's limit (3 here) is reached through conditions the backend does not count
        // (another framework's monitor): it answers `.unmonitored` at the next position.
        let system = FakeConditionMonitors(conditionLimit: 3)
        let other = await system.openMonitor(named: "another-sdk")
        await other.add(SystemCondition(center: offset(-50_000), radius: 300), identifier: "x", assuming: .unknown)
        let backend = CoreLocationMonitorBackend(service: system, locationSource: { await system.lastFix })
        let monitor = try await Monitor("catalogue", backend: backend)
        let slots = await MonitorSlotMonitor(monitor: monitor)
        for i in 0..<3 {
            try await slots.register(.circle(identifier: "s.\(i)", center: offset(Double(i + 1) * 5_000), radius: 300))
        }
        try await system.move(to: fix(0, lyon))
        #expect(await eventually { await backend.receivedCount >= 1 }, "the late answer arrived")
        #expect(slots.takeFailures() == [.slotLimitExceeded(capacity: slots.slotCapacity, identifier: "s.2")])
        #expect(!slots.takeEvents().contains { $0.regionID == "s.2" })

        // The planner, told of it, drops the slot, says so, and re-plans at the next fix.
        let planner = try RegionPlanner(
            monitor: EngineSlotMonitor(subject: "device", policy: .coreLocation), sources: [try shops(3)],
            sizing: ReplanSizing(policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        )
        try await planner.start(at: fix(0, lyon))
        #expect(!(await planner.status.locationUpdatesRequested))
        await planner.handleRefusal(SlotMonitorError.slotLimitExceeded(capacity: 20, identifier: "s.shop-0"))
        let notices = await planner.takeNotices()
        #expect(notices.contains { if case .registrationRefused = $0 { true } else { false } })
        #expect(await planner.status.locationUpdatesRequested, "a re-plan waits for the next fix")
    }
}

/// A system that takes every call and answers none (the worst Core Location may do).
actor NeverAnsweringSystem: SystemLocationManager {
    var regions: [SystemRegion] = []
    func setCallbackHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) {}
    func startMonitoring(_ region: SystemRegion) { regions.append(region) }
    func stopMonitoring(identifier: String) {}
    func requestState(identifier: String) {}
    var monitoredRegions: [SystemRegion] { [] }
    var maximumRegionMonitoringDistance: Double { 400_000 }
    var isMonitoringAvailable: Bool { true }
    var authorizationStatus: AuthorizationStatus { .authorizedAlways }
    func requestWhenInUseAuthorization() {}
    func requestAlwaysAuthorization() {}
    var location: LocationSample? { nil }
    func requestLocation() {}
    func startUpdatingLocation() {}
    func stopUpdatingLocation() {}
}

/// A gate a task waits at until the test opens it.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// One value, set from any task.
final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: MonitorEvent?
    var value: MonitorEvent? { lock.withLock { _value } }
    func set(_ v: MonitorEvent) { lock.withLock { _value = v } }
}

/// The transitions a tap saw.
final class TransitionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [TransitionEvent] = []
    var events: [TransitionEvent] { lock.withLock { _events } }
    func append(_ e: TransitionEvent) { lock.withLock { _events.append(e) } }
}
