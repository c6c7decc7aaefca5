import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

/// The app-life rules (docs/monitoring.md 27–33) for the classic API: a `LocationManager`
/// delegate sees exactly what a `Monitor` sees.
@Suite("App life: LocationManager delegates")
struct ManagerAppLifeTests {
    @Test("suspended: the delegate is called inside the wake window, then the app suspends again")
    func suspended() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        await device.setAppState(.suspended)
        try await device.feed(Array(walkIn().dropLast())) // entry confirmed at 30 s; last fix 35 s
        #expect(recorder.enters == ["shop"])
        #expect(await device.activity.wakeUps == 1)
        #expect(await device.backgroundWindowEnd == t0.addingTimeInterval(40))
        try await device.receive(.tick(t0.addingTimeInterval(40)))
        #expect(await device.settings.appState == .suspended)
        #expect(await device.launches.isEmpty)
    }

    @Test(
        "terminated: relaunched with .location; the dead process's delegate gets nothing; the new one gets the event once"
    )
    func terminated() async throws {
        let device = makeDevice()
        let log = LaunchLog()
        await device.setLaunchHandler { log.add($0) }
        let (old, oldRecorder) = await manager(on: device)
        await old.startMonitoring(for: region("shop"))
        await device.setAppState(.terminated)
        try await device.feed(walkIn())
        #expect(log.reasons == [.location])
        #expect(oldRecorder.enters.isEmpty, "the terminated process's objects are gone")
        // The relaunched app's launch code creates its manager and sets the delegate.
        let (fresh, recorder) = await manager(on: device)
        #expect(recorder.enters == ["shop"])
        #expect(recorder.states == [.state("shop", .inside)])
        #expect(await fresh.monitoredRegions.map(\.identifier) == ["shop"], "regions outlive the process")
        let (anotherManager, another) = await manager(on: device)
        #expect(another.enters.isEmpty, "delivered once")
        try await device.feed(walkOut())
        #expect(recorder.exits == ["shop"] && another.exits == ["shop"], "then live to every delegate")
        withExtendedLifetime(anotherManager) {}
    }

    @Test("removed: no delegate call, no relaunch, no regions")
    func removed() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        await device.setAppState(.removed)
        try await device.feed(walkIn())
        await device.setAppState(.foreground) // reinstalled
        let (fresh, freshRecorder) = await RegionMonitoringTests.manager(on: device)
        #expect(recorder.enters.isEmpty && freshRecorder.enters.isEmpty)
        #expect(await device.launches.map(\.reason) == [.user])
        #expect(await fresh.monitoredRegions.isEmpty)
    }

    @Test("reboot: nothing until the first unlock; then the new state relaunches the app and reaches its delegate")
    func reboot() async throws {
        let device = makeDevice()
        let (manager, _) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed(stride(from: 0.0, through: 35, by: 5).map { fix($0, offset(1_000)) }) // outside
        await device.reboot()
        try await device.feed(walkIn(start: 40)) // entered while locked
        #expect(await device.launches.isEmpty)
        await device.unlock()
        try await device.feed(stride(from: 100.0, through: 140, by: 5).map { fix($0, paris) })
        #expect(await device.launches.map(\.reason) == [.location])
        let (_, recorder) = await RegionMonitoringTests.manager(on: device)
        #expect(recorder.enters == ["shop"], "re-evaluated on resume: the new state, once")
        #expect(await device.activity.relaunches == 1)
    }

    @Test("reboot with no change of state: nothing after unlock")
    func rebootNoChange() async throws {
        let device = makeDevice()
        let (manager, _) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed(stride(from: 0.0, through: 35, by: 5).map { fix($0, offset(1_000)) })
        await device.reboot()
        await device.unlock()
        try await device.feed(walkOut(start: 40))
        #expect(await device.launches.isEmpty)
        let (_, recorder) = await RegionMonitoringTests.manager(on: device)
        #expect(recorder.enters.isEmpty && recorder.exits.isEmpty)
    }

    @Test("macOS: nothing while asleep or not running, never relaunched, nothing kept for later")
    func macOS() async throws {
        let device = makeDevice { $0.platform = .macOS }
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed(stride(from: 0.0, through: 35, by: 5).map { fix($0, offset(1_000)) }) // outside
        await device.sleep()
        try await device.feed(walkIn(start: 40))
        #expect(recorder.enters.isEmpty)
        await device.wake()
        try await device.feed(stride(from: 100.0, through: 140, by: 5).map { fix($0, paris) })
        #expect(recorder.enters == ["shop"], "evaluated afresh after wake")
        await device.setAppState(.terminated)
        try await device.feed(walkOut(start: 145))
        #expect(await device.launches.isEmpty)
        await device.setAppState(.foreground)
        let (_, fresh) = await RegionMonitoringTests.manager(on: device)
        #expect(fresh.exits.isEmpty, "events while not running are dropped")
    }
}
