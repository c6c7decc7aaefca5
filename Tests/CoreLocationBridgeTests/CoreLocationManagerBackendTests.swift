import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import Testing

@testable import CoreLocationBridge

@Suite("CoreLocationManagerBackend: LocationManager on Core Location (fake)")
struct CoreLocationManagerBackendTests {
    @Test("the 21st region fails without reaching the system; the other twenty keep working")
    func twentyFirstRegionFails() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        _ = app.recorder.take()
        for i in 0..<20 { await app.manager.startMonitoring(for: circle("r\(i)", north: Double(i) * 2_000)) }
        await app.manager.startMonitoring(for: circle("late", north: 50_000))
        await app.backend.settle()
        let calls = app.recorder.take()
        #expect(calls.filter { if case .start = $0 { true } else { false } }.count == 20)
        #expect(
            calls.filter { if case .fail = $0 { true } else { false } } == [
                .fail("late", .regionMonitoringFailure(.limitExceeded(limit: 20)))
            ],
            "refused at once, before the system's answers for the others")
        #expect(await app.system.startMonitoringCalls == 20, "the slot count is checked before registering")
        #expect(await app.manager.monitoredRegions.count == 20)
        await app.manager.startMonitoring(for: circle("r3", north: 6_000, radius: 400)) // a replacement needs no slot
        try await app.drive(
            stay(at: offset(50_000), from: 0, through: 30) + stay(at: offset(10_000), from: 35, through: 70))
        #expect(app.recorder.take() == [.start("r3"), .enter("r5"), .state("r5", .inside)])
    }

    @Test("a region the system refuses fails alone and is dropped; the others keep working")
    func systemRefusalIsPerRegion() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, regionLimit: 2) // stricter than we assume
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("a"))
        await app.manager.startMonitoring(for: circle("b", north: 5_000))
        await app.manager.startMonitoring(for: circle("c", north: 10_000))
        await app.backend.settle()
        #expect(
            app.recorder.take() == [
                .auth(.authorizedAlways), .start("a"), .start("b"),
                .fail("c", .regionMonitoringFailure(.reportedBySystem(code: 5))),
            ])
        #expect(Set(await app.manager.monitoredRegions.map(\.identifier)) == ["a", "b"])
        try await app.drive(
            stay(at: offset(3_000), from: 0, through: 30) + stay(at: offset(5_000), from: 35, through: 70))
        #expect(app.recorder.take() == [.enter("b"), .state("b", .inside)])
    }

    @Test("regions Core Location cannot monitor fail at once with the reason, and are not registered")
    func refusedBeforeTheSystem() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways, maximumRegionMonitoringDistance: 1_000)
        let app = await CoreLocationApp.launch(on: system)
        let square = PolygonRegion(exterior: [offset(0), offset(0, 10), offset(10, 10)], identifier: "poly")
        await app.manager.startMonitoring(for: square)
        await app.manager.startMonitoring(for: circle("huge", radius: 5_000))
        await app.manager.startMonitoring(for: circle("nan", radius: .nan))
        await app.manager.startMonitoring(for: circle("zero", radius: 0))
        await app.manager.startMonitoring(for: circle(""))
        await app.backend.settle()
        let reasons = app.recorder.take().compactMap { call -> String? in
            guard case .fail(let id, .regionMonitoringFailure(let reason)) = call else { return nil }
            switch reason {
            case .invalidRegion(.invalidRegion(_, let field, _)): return "\(id ?? "nil"):\(field)"
            case .radiusTooLarge(let r, let m): return "\(id ?? "nil"):\(r)>\(m)"
            default: return "\(id ?? "nil"):\(reason)"
            }
        }
        #expect(reasons == ["poly:shape", "huge:5000.0>1000.0", "nan:radius", "zero:radius", ":identifier"])
        #expect(await system.startMonitoringCalls == 0)
        #expect(await app.manager.monitoredRegions.isEmpty)
    }

    @Test("a region registered while already inside gives no entry; requestState answers inside")
    func alreadyInsideAnswersItsState() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        try await app.drive([fix(0, lyon)])
        await app.manager.startMonitoring(for: circle("home"))
        try await app.drive(stay(at: lyon, from: 5, through: 60))
        await app.manager.requestState(for: circle("home"))
        await app.backend.settle()
        #expect(app.recorder.take() == [.auth(.authorizedAlways), .start("home"), .state("home", .inside)])
        #expect(await app.backend.determineState(of: "home") == .inside)
        #expect(await app.backend.determineState(of: "elsewhere") == .unknown)
    }

    @Test("requestState before the system has decided answers unknown, then the real state once asked again")
    func stateAnsweredLater() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        await app.manager.startMonitoring(for: circle("home"))
        await app.manager.requestState(for: circle("home"))
        await app.backend.settle()
        #expect(app.recorder.take() == [.auth(.authorizedAlways), .start("home"), .state("home", .unknown)])
        try await app.drive(stay(at: offset(2_000), from: 0, through: 30))
        await app.manager.requestState(for: circle("home"))
        await app.backend.settle()
        #expect(app.recorder.take() == [.state("home", .outside)], "the first state was silent")
    }

    @Test("authorisation arriving late starts the regions registered before it")
    func lateAuthorisationStartsPendingRegions() async throws {
        let system = FakeCoreLocation(authorization: .notDetermined, promptAnswer: .authorizedWhenInUse)
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("a"))
        await app.manager.startMonitoring(for: circle("b", north: 5_000))
        try await app.drive(stay(at: offset(5_000), from: 0, through: 30))
        #expect(app.recorder.take() == [.auth(.notDetermined)], "registered, pending, silent")
        #expect(await app.manager.monitoredRegions.count == 2)
        await app.manager.requestWhenInUseAuthorization()
        await app.backend.settle()
        #expect(app.recorder.take() == [.auth(.authorizedWhenInUse), .start("a"), .start("b")])
        await app.manager.requestAlwaysAuthorization() // one upgrade prompt; refused
        await system.setPromptAnswer(.authorizedAlways)
        await app.manager.requestAlwaysAuthorization() // not asked twice
        await app.backend.settle()
        #expect(await app.manager.authorizationStatus == .authorizedWhenInUse)
        try await app.drive(stay(at: offset(5_000), from: 35, through: 60) + stay(at: lyon, from: 65, through: 100))
        #expect(app.recorder.take() == [.exit("b"), .state("b", .outside), .enter("a"), .state("a", .inside)])
    }

    @Test("denied: each region fails with regionMonitoringDenied but stays registered; permission later starts it")
    func deniedThenGranted() async throws {
        let system = FakeCoreLocation(authorization: .denied)
        let app = await CoreLocationApp.launch(on: system)
        await app.manager.startMonitoring(for: circle("a"))
        await app.backend.settle()
        #expect(app.recorder.take() == [.auth(.denied), .fail("a", .regionMonitoringDenied(.denied))])
        #expect(await app.manager.monitoredRegions.map(\.identifier) == ["a"])
        await system.setAuthorization(.authorizedAlways)
        await app.backend.settle()
        #expect(app.recorder.take() == [.auth(.authorizedAlways), .start("a")])
    }

    @Test("a relaunch finds the system's regions, and the event the app was launched for reaches the new delegate")
    func relaunchKeepsRegionsAndEvents() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        var app: CoreLocationApp? = await CoreLocationApp.launch(on: system)
        await app?.manager.startMonitoring(for: circle("home", entry: true, exit: false))
        try await app?.drive(stay(at: offset(3_000), from: 0, through: 30))
        await system.terminateApp()
        app = nil
        for f in stay(at: lyon, from: 35, through: 70) { try await system.move(to: f) } // app not running
        let relaunched = await CoreLocationApp.launch(on: system)
        await relaunched.backend.settle()
        #expect(relaunched.recorder.take() == [.auth(.authorizedAlways), .enter("home"), .state("home", .inside)])
        let regions = await relaunched.manager.monitoredRegions
        #expect(regions.map(\.identifier) == ["home"])
        #expect(regions.first?.notifyOnExit == false, "the region comes back as the system holds it")
    }

    @Test("a relaunch's event and its state, handled before the app sets a delegate, reach the first delegate in order")
    func relaunchEventsWaitForTheDelegate() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        var app: CoreLocationApp? = await CoreLocationApp.launch(on: system)
        await app?.manager.startMonitoring(for: circle("home"))
        try await app?.drive(stay(at: offset(3_000), from: 0, through: 30))
        await system.terminateApp()
        app = nil
        for f in stay(at: lyon, from: 35, through: 80) { try await system.move(to: f) }
        let backend = await CoreLocationManagerBackend(system: system)
        await backend.settle() // handled while nobody listens
        let manager = await LocationManager(backend: backend)
        let recorder = Recorder()
        await manager.setDelegate(recorder)
        #expect(recorder.calls == [.auth(.authorizedAlways), .enter("home"), .state("home", .inside)])
    }

    @Test("currentLocation: the system's last location while fresh, otherwise a one-shot request")
    func currentLocationFreshOrRequested() async throws {
        let clock = TestClock(t0)
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let app = await CoreLocationApp.launch(on: system, freshness: 60, now: { clock.now })
        #expect(await app.backend.currentLocation() == nil, "no location: the request fails (locationUnknown)")
        try await app.drive([fix(0, lyon)])
        clock.set(t0.addingTimeInterval(30))
        #expect(await app.backend.currentLocation()?.timestamp == t0)
        let before = await system.sent.count
        clock.set(t0.addingTimeInterval(600))
        let requested = await app.backend.currentLocation()
        #expect(requested?.timestamp == t0, "the one-shot answer (the fake's last position)")
        #expect(await system.sent.count == before + 1, "one requestLocation, answered by didUpdateLocations")
    }

    @Test("stopping a region answers a waiting state request with unknown")
    func stopAnswersWaiters() async throws {
        let app = await CoreLocationApp.launch(on: FakeCoreLocation(authorization: .authorizedAlways))
        await app.manager.startMonitoring(for: circle("a"))
        await app.manager.stopMonitoring(for: circle("a"))
        #expect(await app.backend.determineState(of: "a") == .unknown)
        #expect(await app.manager.monitoredRegions.isEmpty)
    }
}
