import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

/// App code written once against `LocationManager`: asks for permission, monitors three
/// shops, and turns entries into notifications.
final class ShopAlerts: LocationManagerDelegate, @unchecked Sendable {
    let recorder = Recorder()
    private let lock = NSLock()
    private var _notifications: [String] = []
    var notifications: [String] { lock.withLock { _notifications } }

    func launch(_ manager: LocationManager) async {
        await manager.setDelegate(self)
        await manager.requestAlwaysAuthorization()
        for (id, north) in [("bakery", 0.0), ("books", 2_000), ("cafe", -2_000)] {
            await manager.startMonitoring(for: circle(id, north: north))
        }
    }

    func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion) {
        lock.withLock { _notifications.append("Welcome to \(region.identifier)") }
        recorder.locationManager(manager, didEnterRegion: region)
    }
    func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion) {
        recorder.locationManager(manager, didExitRegion: region)
    }
    func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: MonitoredRegion)
    {
        recorder.locationManager(manager, didDetermineState: state, for: region)
    }
    func locationManager(_ manager: LocationManager, didStartMonitoringFor region: MonitoredRegion) {
        recorder.locationManager(manager, didStartMonitoringFor: region)
    }
    func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: MonitoredRegion?,
        withError error: RegionMonitoringError
    ) {
        recorder.locationManager(manager, monitoringDidFailFor: region, withError: error)
    }
    func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus) {
        recorder.locationManager(manager, didChangeAuthorization: status)
    }
}

@Suite("The same app code on the simulated device and on Core Location")
struct SameAppCodeTests {
    /// Far from every shop, into the bakery, over to the bookshop, away again; a fix every 5 s.
    let track: [LocationFix] =
        stay(at: offset(5_000), from: 0, through: 30) + stay(at: lyon, from: 35, through: 80)
        + stay(at: offset(2_000), from: 85, through: 130) + stay(at: offset(5_000), from: 135, through: 180)

    @Test("the same delegate calls, in the same order, from SimulatedDevice and from the Core Location backend")
    func sameEvents() async throws {
        var settings = DeviceSettings()
        settings.authorization = .notDetermined
        settings.promptResponse = .allowAlways
        settings.appState = .foreground
        let device = SimulatedDevice(settings: settings, start: t0)
        let simulatedApp = ShopAlerts()
        let simulatedManager = await LocationManager(backend: device) // held, as an app holds its manager
        await simulatedApp.launch(simulatedManager)
        for f in track { try await device.receive(.fix(f)) }

        let system = FakeCoreLocation(authorization: .notDetermined, promptAnswer: .authorizedAlways)
        let backend = await CoreLocationManagerBackend(system: system)
        let coreLocationApp = ShopAlerts()
        let coreLocationManager = await LocationManager(backend: backend)
        await coreLocationApp.launch(coreLocationManager)
        for f in track { try await system.move(to: f) }
        await backend.settle()

        let expected: [Recorder.Call] = [
            .auth(.notDetermined), .auth(.authorizedAlways), .start("bakery"), .start("books"), .start("cafe"),
            .enter("bakery"), .state("bakery", .inside),
            .exit("bakery"), .state("bakery", .outside), .enter("books"), .state("books", .inside),
            .exit("books"), .state("books", .outside),
        ]
        #expect(simulatedApp.recorder.calls == expected)
        #expect(coreLocationApp.recorder.calls == simulatedApp.recorder.calls)
        #expect(coreLocationApp.notifications == ["Welcome to bakery", "Welcome to books"])
        #expect(coreLocationApp.notifications == simulatedApp.notifications)
        withExtendedLifetime((simulatedManager, coreLocationManager)) {}
    }
}

@Suite("The same planner code on the simulated device and on Core Location")
struct SamePlannerCodeTests {
    /// App code: a planner over 40 shops on `manager`, fed by the adapter's locations and
    /// events after each fix `drive` delivers. Returns the entries, in order.
    func shopEntries(on manager: LocationManager, drive: (LocationFix) async throws -> Void) async throws -> [String] {
        let slots = await LocationManagerSlotMonitor(manager: manager)
        let regions = (0..<40).map {
            Region.circle(identifier: "shop-\($0)", center: offset(1_000 + Double($0) * 1_000), radius: 300)
        }
        let source = PlannerSource(prefix: "s.", catalogue: try Catalogue(regions.map { CatalogueEntry(region: $0) }))
        let sizing = ReplanSizing(
            policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: sizing)
        try await planner.start(at: fix(0, lyon))
        var entered: [String] = []
        for s in 0...4_200 {
            try await drive(fix(Double(s), offset(Double(s) * 10)))
            for f in slots.takeLocations() {
                entered += try await planner.observe(f).filter { $0.kind == .enter }.map(\.identifier)
            }
            for e in await slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
        }
        return entered
    }

    @Test("LocationManagerSlotMonitor: every shop entered once, in order, on both backends")
    func samePlannerEntries() async throws {
        var settings = DeviceSettings()
        settings.authorization = .authorizedAlways
        let device = SimulatedDevice(settings: settings, start: t0)
        let simulated = try await shopEntries(on: await LocationManager(backend: device)) {
            try await device.receive(.fix($0))
        }

        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let backend = await CoreLocationManagerBackend(system: system, locationFreshness: .infinity)
        let coreLocation = try await shopEntries(on: await LocationManager(backend: backend)) {
            try await system.move(to: $0)
            await backend.settle()
        }
        #expect(simulated == (0..<40).map { "shop-\($0)" })
        #expect(coreLocation == simulated)
    }
}
