import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

/// Records launch reasons from the device's launch handler.
final class LaunchLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [LaunchReason] = []
    var reasons: [LaunchReason] { lock.withLock { log } }
    func add(_ r: LaunchReason) { lock.withLock { log.append(r) } }
}

@Suite("App life")
struct AppLifeTests {
    let circle = MonitorCondition.circular(center: paris, radius: 500)

    @Test("a suspended app is woken for its window, handles the event inside it, and suspends again")
    func suspendedWake() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        var it = monitor.events.makeAsyncIterator()
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.setAppState(.suspended)
        try await device.feed(Array(walkIn().dropLast())) // entry confirmed at 30 s; last fix 35 s
        let event = try #require(await take(1, from: &it).first)
        #expect(event.state == .satisfied)
        #expect(await device.settings.appState == .background)
        let end = try #require(await device.backgroundWindowEnd)
        #expect(end == t0.addingTimeInterval(40), "default window: 10 s from the event")
        #expect(event.date >= t0.addingTimeInterval(30) && event.date < end, "handled inside the window")
        #expect(await device.requestMoreBackgroundTime(5) == t0.addingTimeInterval(45))
        try await device.receive(.tick(t0.addingTimeInterval(42)))
        #expect(await device.settings.appState == .background, "extended window still running")
        try await device.receive(.tick(t0.addingTimeInterval(45)))
        #expect(await device.settings.appState == .suspended)
        #expect(await device.backgroundWindowEnd == nil)
        #expect(await device.requestMoreBackgroundTime(5) == nil, "no window to extend once suspended")
        #expect(await device.launches.isEmpty, "waking is not a launch")
        #expect(
            await device.activity
                == {
                    var a = DeviceActivity()
                    a.fixes = 12
                    a.wakeUps = 1
                    return a
                }())
    }

    @Test("the wake window is configurable")
    func configurableWindow() async throws {
        let device = makeDevice { $0.backgroundWakeDuration = 3 }
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.setAppState(.suspended)
        try await device.feed(Array(walkIn().prefix(11))) // up to the 30 s fix
        #expect(await device.backgroundWindowEnd == t0.addingTimeInterval(33))
        try await device.receive(.tick(t0.addingTimeInterval(33)))
        #expect(await device.settings.appState == .suspended)
    }

    @Test("a terminated app is relaunched in the background with the location launch reason and gets the event once")
    func terminatedRelaunch() async throws {
        let device = makeDevice()
        let log = LaunchLog()
        await device.setLaunchHandler { log.add($0) }
        let first = try await Monitor("m", device: device)
        await first.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.setAppState(.terminated)
        #expect(await drain(first).isEmpty, "the process ended: its stream finished")
        try await device.feed(walkIn())
        #expect(log.reasons == [.location])
        #expect(await device.activity.relaunches == 1)
        #expect(await device.launches == [LaunchRecord(reason: .location, date: t0.addingTimeInterval(30))])
        // The relaunched app's launch code opens the monitor by name.
        let relaunched = try await Monitor("m", device: device)
        let events = await drain(relaunched)
        #expect(events.map(\.state) == [.satisfied])
        #expect(events.first?.date == t0.addingTimeInterval(30))
        let again = try await Monitor("m", device: device)
        #expect(await drain(again).isEmpty, "delivered once")
        await device.setAppState(.foreground)
        #expect(log.reasons == [.location], "background to foreground is not a launch")
    }

    @Test("a user launch after termination is reported as .user")
    func userLaunch() async throws {
        let device = makeDevice()
        let log = LaunchLog()
        await device.setLaunchHandler { log.add($0) }
        await device.setAppState(.terminated)
        await device.setAppState(.foreground)
        #expect(log.reasons == [.user])
    }

    @Test("a removed app receives nothing and keeps no regions")
    func removed() async throws {
        let dir = temporaryDirectory()
        let store = MonitorStore(directory: dir)
        let device = makeDevice(store: store)
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("home"))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        #expect(await device.monitoredRegionCount == 2)
        await device.setAppState(.removed)
        #expect(await device.monitoredRegionCount == 0)
        try await device.feed(walkIn())
        #expect(recorder.enters.isEmpty)
        #expect(await device.launches.isEmpty)
        #expect(await drain(monitor).isEmpty)
        // Reinstalled: it starts from nothing, on this device and from the store.
        await device.setAppState(.foreground)
        let fresh = try await Monitor("m", device: device)
        #expect(await fresh.identifiers.isEmpty)
        let rebooted = SimulatedDevice(settings: await device.settings, start: t0, store: store)
        #expect(await rebooted.monitoredRegionCount == 0)
        #expect(store.storedNames() == ["m"], "only the fresh install's monitor is stored")
    }

    @Test("removing the app also deletes monitors that are stored but not loaded")
    func removedDropsStoredMonitors() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let before = makeDevice(store: store)
        let old = try await Monitor("old", device: before)
        await old.add(circle, identifier: "shop")
        await old.close()
        #expect(store.storedNames() == ["old"])
        let device = makeDevice(store: store) // "old" not opened here
        await device.setAppState(.removed)
        #expect(store.storedNames().isEmpty)
    }

    @Test("after a reboot nothing is delivered until the first unlock; then monitoring resumes with the current state")
    func rebootAndUnlock() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.reboot()
        #expect(await device.power == .lockedAfterBoot)
        #expect(await drain(monitor).isEmpty)
        try await device.feed(walkIn()) // entered while locked
        #expect(await device.launches.isEmpty, "nothing happens before the first unlock")
        #expect(await device.activity.fixes == 0, "no positions are evaluated while locked after boot")
        await device.unlock()
        #expect(await device.power == .on)
        try await device.feed(stride(from: 60.0, through: 100, by: 5).map { fix($0, paris) })
        #expect(await device.launches.map(\.reason) == [.location])
        let relaunched = try await Monitor("m", device: device)
        let events = await drain(relaunched)
        #expect(events.map(\.state) == [.satisfied], "re-evaluated on resume: one event for the new state")
        #expect(events.allSatisfy { $0.date >= t0.addingTimeInterval(60) }, "not the crossing made while locked")
    }

    @Test("no change of state across a reboot means no event after unlock")
    func rebootNoChange() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.reboot()
        _ = await drain(monitor)
        await device.unlock()
        try await device.feed(walkOut(start: 0))
        #expect(await device.launches.isEmpty)
        let reopened = try await Monitor("m", device: device)
        #expect(await drain(reopened).isEmpty)
    }

    @Test("macOS delivers nothing while asleep or not running, and never relaunches")
    func macOS() async throws {
        let device = makeDevice { $0.platform = .macOS }
        let monitor = try await Monitor("m", device: device)
        var it = monitor.events.makeAsyncIterator()
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.sleep()
        try await device.feed(walkIn())
        await device.wake()
        try await device.feed(stride(from: 60.0, through: 100, by: 5).map { fix($0, paris) })
        let awake = await take(1, from: &it)
        #expect(awake.map(\.state) == [.satisfied])
        #expect(awake.first.map { $0.date >= t0.addingTimeInterval(60) } == true, "nothing from the sleeping period")
        await device.setAppState(.terminated)
        try await device.feed(walkOut(start: 105))
        #expect(await device.launches.isEmpty, "never relaunched")
        await device.setAppState(.foreground)
        let reopened = try await Monitor("m", device: device)
        #expect(await drain(reopened).isEmpty, "events while not running are not kept for later")
    }

    @Test("macOS: a suspended app is not woken")
    func macOSSuspended() async throws {
        let device = makeDevice { $0.platform = .macOS }
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "shop", assuming: .unsatisfied)
        await device.setAppState(.suspended)
        try await device.feed(walkIn())
        #expect(await device.settings.appState == .suspended)
        #expect(await drain(monitor).isEmpty)
    }
}
