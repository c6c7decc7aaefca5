import Foundation
import Geodesy
import Geofencing
import RegionPlanner
import Testing

@testable import RegionMonitoring

/// The simulated device as a backend: what `LocationManagerBackend` adds to it.
@Suite("SimulatedDevice as a LocationManagerBackend")
struct BackendSeamTests {
    /// Records positions and region events in one log, in order.
    final class Log: LocationManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var log: [String] = []
        var entries: [String] { lock.withLock { log } }
        func locationManager(_ m: LocationManager, didUpdateLocations fixes: [LocationFix]) {
            lock.withLock { log += fixes.map { "fix \(Int($0.timestamp.timeIntervalSince(t0)))" } }
        }
        func locationManager(_ m: LocationManager, didEnterRegion r: MonitoredRegion) {
            lock.withLock { log.append("enter \(r.identifier)") }
        }
    }

    @Test("location updates reach the delegates only while on, each before the region events it causes")
    func locationUpdates() async throws {
        let device = makeDevice()
        let manager = await LocationManager(backend: device)
        let log = Log()
        await manager.setDelegate(log)
        await manager.startMonitoring(for: region("home"))
        try await device.feed(Array(walkIn().prefix(6))) // −20 … +5: not reported
        await manager.startUpdatingLocation()
        try await device.feed(Array(walkIn().dropFirst(6))) // +10 … +40
        await manager.stopUpdatingLocation()
        try await device.feed(stay(at: paris, from: 45, through: 50))
        #expect(log.entries == ["fix 10", "fix 15", "fix 20", "fix 25", "fix 30", "enter home", "fix 35", "fix 40"])
    }

    @Test("determineState answers what the device knows now; currentLocation is the last fix taken")
    func stateAndLocation() async throws {
        let device = makeDevice()
        let manager = await LocationManager(backend: device)
        #expect(await device.currentLocation() == nil)
        await manager.startMonitoring(for: region("home"))
        #expect(await device.determineState(of: "home") == .unknown, "not yet determined: no waiting")
        try await device.feed(walkIn())
        #expect(await device.determineState(of: "home") == .inside)
        #expect(await device.determineState(of: "nowhere") == .unknown)
        #expect(await device.currentLocation()?.timestamp == t0.addingTimeInterval(40))
        #expect(manager.device === device)
    }

    @Test(
        "LocationManagerSlotMonitor on the simulated device: the re-plan circle's initial exit comes from the state answer"
    )
    func slotMonitorInitialExit() async throws {
        let device = makeDevice()
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(device: device))
        #expect(slots.slotCapacity == 20)
        var replan = Region.circle(identifier: "_planner.replan", center: paris, radius: 300)
        replan.initialTrigger = .exit
        try await slots.register(replan)
        try await slots.register(.circle(identifier: "quiet", center: paris, radius: 300))
        try await device.feed(stay(at: offset(2_000), from: 0, through: 40))
        let events = await slots.takeEvents()
        #expect(events.map(\.regionID) == ["_planner.replan"])
        #expect(events.first?.kind == .exit && events.first?.isInitial == true)
        #expect(await slots.registeredIdentifiers == ["_planner.replan", "quiet"])
        #expect(await slots.state(of: "quiet") == .outside)
    }
}
