import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

@Suite("Core Location bridge against what it was not designed for", .timeLimit(.minutes(1)))
struct AdversarialBridgeTests {
    @Test("thirty overlapping registrations: twenty reach the system, ten fail with the limit, none twice")
    func concurrentRegistrations() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        _ = app.recorder.take()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<30 {
                group.addTask { await app.manager.startMonitoring(for: circle("r\(i)", north: Double(i) * 1_000)) }
            }
        }
        await app.backend.settle()
        let calls = app.recorder.take()
        let started = calls.filter { if case .start = $0 { true } else { false } }
        let limited = calls.filter {
            if case .fail(_, .regionMonitoringFailure(.limitExceeded(20))) = $0 { true } else { false }
        }
        #expect(started.count == 20)
        #expect(limited.count == 10)
        #expect(await app.system.startMonitoringCalls == 20, "the system is never asked for a 21st")
    }

    @Test("a centre that is not a coordinate is refused by name, never registered")
    func nonCoordinateCentre() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        _ = app.recorder.take()
        let bad = Coordinate(uncheckedLatitude: .nan, longitude: 4.8)
        await app.manager.startMonitoring(for: CircularRegion(center: bad, radius: 200, identifier: "nan"))
        await app.manager.startMonitoring(
            for: CircularRegion(
                center: Coordinate(uncheckedLatitude: 91, longitude: 0), radius: 200, identifier: "pole+"))
        await app.backend.settle()
        let fields = app.recorder.take().compactMap { call -> String? in
            if case .fail(_, .regionMonitoringFailure(.invalidRegion(.invalidRegion(_, let field, _)))) = call {
                return field
            }
            return nil
        }
        #expect(fields == ["center", "center"])
        #expect(await app.system.startMonitoringCalls == 0)
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        await #expect(throws: SlotMonitorError.self) {
            try await slots.register(.circle(identifier: "x", center: bad, radius: 100))
        }
    }

    @Test("identifiers with U+001F, emoji or 100 000 characters get their events")
    func hostileIdentifiers() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        _ = app.recorder.take()
        let ids = ["a\u{1F}b", "🏪 shop", String(repeating: "x", count: 100_000)]
        for id in ids {
            await app.manager.startMonitoring(for: CircularRegion(center: lyon, radius: 300, identifier: id))
        }
        try await app.drive(stay(at: offset(3_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80))
        let entered = app.recorder.take().compactMap { if case .enter(let id) = $0 { id } else { nil } }
        #expect(Set(entered) == Set(ids))
        #expect(entered.count == 3)
    }

    @Test("a person lingering at the boundary for an hour: entries and exits strictly alternate, in order")
    func lingeringAtTheBoundary() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        await app.manager.startMonitoring(for: circle("door", radius: 200))
        _ = app.recorder.take()
        var rng = SplitMix64(seed: 7)
        var fixes: [LocationFix] = []
        for s in stride(from: 0.0, through: 3_600, by: 5) {
            // Ten minutes outside, ten inside, alternately; one fix in ten on the wrong side.
            let inside = (Int(s / 600) % 2 == 1) != (rng.uniform(0, 1) < 0.1)
            let north = inside ? rng.uniform(-90, 90) : rng.uniform(350, 600)
            fixes.append(fix(s, offset(north)))
        }
        try await app.drive(fixes)
        let transitions = app.recorder.take().compactMap { call -> String? in
            switch call {
            case .enter: "enter"
            case .exit: "exit"
            default: nil
            }
        }
        #expect(transitions.count == 5, "one per change of side (6 phases), never one per stray fix: \(transitions)")
        #expect(zip(transitions, transitions.dropFirst()).allSatisfy { $0 != $1 }, "\(transitions)")
    }

    @Test("many state requests at once are all answered, with the same state")
    func concurrentStateRequests() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        await app.manager.startMonitoring(for: circle("a", radius: 500))
        try await app.drive(stay(at: lyon, from: 0, through: 40))
        let states = await withTaskGroup(of: RegionState.self) { group in
            for _ in 0..<50 { group.addTask { await app.backend.determineState(of: "a") } }
            return await group.reduce(into: [RegionState]()) { $0.append($1) }
        }
        #expect(states.count == 50)
        #expect(states.allSatisfy { $0 == .inside })
    }

    @Test("an out-of-order fix is refused by the fake and changes nothing")
    func outOfOrderFix() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        await app.manager.startMonitoring(for: circle("a"))
        try await app.drive(stay(at: offset(3_000), from: 0, through: 30))
        await #expect(throws: GeofencingError.self) { try await app.system.move(to: fix(10, lyon)) }
        #expect(await app.system.location?.timestamp == t0.addingTimeInterval(30))
    }

    @Test("a relaunch on a system holding twenty foreign regions: the planner refuses to start, nothing is removed")
    func relaunchWithNoRoomLeft() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let app = await CoreLocationApp.launch(on: system)
        for i in 0..<20 { await app.manager.startMonitoring(for: circle("own-\(i)", north: Double(i) * 1_000)) }
        await app.backend.settle()
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        let source = PlannerSource(
            prefix: "s.",
            catalogue: try Catalogue([CatalogueEntry(region: .circle(identifier: "x", center: lyon, radius: 300))]))
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        await #expect(throws: PlannerError.self) { try await planner.start(at: fix(0, lyon)) }
        #expect(await system.systemTable.count == 20, "the app's own regions are left alone")
    }
}

@Suite("Core Location bridge: nothing waits on a system that will not answer", .timeLimit(.minutes(1)))
struct NoEndlessWaitTests {
    @Test("without authorisation, state and location requests answer at once")
    func unauthorisedAnswersAtOnce() async throws {
        let system = FakeCoreLocation(authorization: .denied)
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("a"))
        #expect(await app.backend.determineState(of: "a") == .unknown)
        #expect(await app.backend.currentLocation() == nil)
    }

    /// A system that takes requests and never answers them (the worst a real one could do).
    actor SilentSystem: SystemLocationManager {
        var handler: (@Sendable (SystemCallback) -> Void)?
        var regions: [SystemRegion] = []
        var status: AuthorizationStatus = .authorizedAlways
        func setCallbackHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) { self.handler = handler }
        func startMonitoring(_ region: SystemRegion) { regions.append(region) }
        func stopMonitoring(identifier: String) { regions.removeAll { $0.identifier == identifier } }
        func requestState(identifier: String) {}
        var monitoredRegions: [SystemRegion] { regions }
        var maximumRegionMonitoringDistance: Double { 1_000 }
        var isMonitoringAvailable: Bool { true }
        var authorizationStatus: AuthorizationStatus { status }
        func requestWhenInUseAuthorization() {}
        func requestAlwaysAuthorization() {}
        var location: LocationSample? { nil }
        func requestLocation() {}
        func startUpdatingLocation() {}
        func stopUpdatingLocation() {}
        func revoke() {
            status = .denied
            handler?(.didChangeAuthorization(.denied))
            for r in regions { handler?(.monitoringDidFail(identifier: r.identifier, .regionMonitoringDenied)) }
        }
    }

    @Test("requests waiting on a silent system are answered unknown / nil when authorisation goes")
    func revokedAuthorisationReleasesWaiters() async throws {
        let system = SilentSystem()
        let backend = await CoreLocationManagerBackend(system: system)
        let manager = await LocationManager(backend: backend)
        await manager.startMonitoring(for: circle("a"))
        async let state = backend.determineState(of: "a")
        async let location = backend.currentLocation()
        while await backend.waitingRequests < 2 { await Task.yield() }
        await system.revoke()
        #expect(await state == .unknown)
        #expect(await location == nil)
    }
}
