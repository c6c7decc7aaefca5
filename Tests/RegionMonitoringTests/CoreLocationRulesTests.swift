import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

/// The rules of issue #25 (docs/monitoring.md rules 5, 9, 15, 22 and 35–37): each test failed
/// before its fix.
@Suite("Core Location rules: the limit, identifiers, when-in-use, initial state, requestState, names")
struct CoreLocationRulesTests {
    let farAway = offset(1_000)

    /// `n` conditions far from `paris`, 3 km apart.
    func fill(_ monitor: Monitor, _ n: Int, prefix: String = "c") async {
        for i in 0..<n {
            await monitor.add(
                .circular(center: offset(10_000 + Double(i) * 3_000), radius: 300), identifier: "\(prefix)\(i)",
                assuming: .unsatisfied)
        }
    }

    // MARK: 1. The limit

    @Test("a condition refused at the limit gets no slot by being added again under the same identifier")
    func refusedConditionReAdded() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await fill(monitor, 20)
        let shop = MonitorCondition.circular(center: paris, radius: 500)
        await monitor.add(shop, identifier: "shop", assuming: .unsatisfied)
        await monitor.add(shop, identifier: "shop", assuming: .unsatisfied)
        #expect(await device.monitoredRegionCount == 20)
        let record = try #require(await monitor.record(for: "shop"))
        #expect(record.lastEvent.state == .unmonitored && record.lastEvent.conditionLimitExceeded)
        try await device.feed(stay(at: farAway, from: 0, through: 25) + stay(at: paris, from: 30, through: 60))
        let events = await drain(monitor)
        #expect(events.map(\.state) == [.unmonitored, .unmonitored], "two refusals, no crossing")
    }

    @Test("a refused condition is monitored once re-added after a slot has been freed")
    func refusedThenFreed() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await fill(monitor, 20)
        let shop = MonitorCondition.circular(center: paris, radius: 500)
        await monitor.add(shop, identifier: "shop", assuming: .unsatisfied)
        await monitor.remove("c0")
        #expect(await monitor.record(for: "shop")?.lastEvent.state == .unmonitored, "no automatic promotion")
        await monitor.add(shop, identifier: "shop", assuming: .unsatisfied)
        #expect(await device.monitoredRegionCount == 20)
        try await device.feed(stay(at: farAway, from: 0, through: 25) + stay(at: paris, from: 30, through: 60))
        #expect(await drain(monitor).map(\.state) == [.unmonitored, .satisfied])
    }

    @Test("re-adding a refused condition cannot push manager regions past the shared limit")
    func refusedConditionWithManagerRegions() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        for i in 0..<19 {
            await manager.startMonitoring(for: region("r\(i)", at: offset(20_000 + Double(i) * 3_000), radius: 300))
        }
        let monitor = try await Monitor("m", device: device)
        await fill(monitor, 2)
        #expect(await monitor.record(for: "c1")?.lastEvent.conditionLimitExceeded == true)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "c1", assuming: .unsatisfied)
        #expect(await device.monitoredRegionCount == 20)
        await manager.startMonitoring(for: region("late", at: offset(-20_000)))
        #expect(recorder.failures == [.fail("late", .regionMonitoringFailure(.limitExceeded(limit: 20)))])
    }

    @Test(
        "a stored monitor reopened under a lower limit keeps the first conditions and refuses the rest, by the same slot count"
    )
    func storedMonitorOverLowerLimit() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let before = makeDevice(store: store)
        await fill(try await Monitor("m", device: before), 20)
        let after = makeDevice(store: store) { $0.regionLimit = 12 }
        let monitor = try await Monitor("m", device: after)
        #expect(await after.monitoredRegionCount == 12)
        #expect(await monitor.record(for: "c11")?.lastEvent.state == .unsatisfied)
        let refused = try #require(await monitor.record(for: "c12"))
        #expect(refused.lastEvent.state == .unmonitored && refused.lastEvent.conditionLimitExceeded)
        #expect(try store.load(name: "m")?.records["c19"]?.lastEvent.state == .unmonitored, "written back")
    }

    // MARK: 2. Identifiers are data

    @Test(
        "events reach regions whose identifiers contain U+001F, look like internal keys, or are huge",
        arguments: [
            "a\u{1F}b", "M\u{1F}m\u{1F}shop", "L\u{1F}x", "\u{1F}", String(repeating: "é🚲", count: 5_000),
        ])
    func identifiersAreData(identifier: String) async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region(identifier))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: offset(5_000), radius: 300), identifier: "shop", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 25) + stay(at: paris, from: 30, through: 60))
        try await device.feed(stay(at: farAway, from: 65, through: 100))
        #expect(recorder.enters == [identifier] && recorder.exits == [identifier])
        #expect(await drain(monitor).isEmpty, "the monitor's condition is elsewhere")
    }

    @Test("a monitor condition whose identifier contains U+001F gets its events")
    func conditionIdentifierWithSeparator() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop\u{1F}1", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 25) + stay(at: paris, from: 30, through: 60))
        #expect(await drain(monitor).map(\.identifier) == ["shop\u{1F}1"])
    }

    // MARK: 3. When in use

    @Test("when-in-use: a terminated app is not relaunched for a region event")
    func whenInUseNotRelaunched() async throws {
        let device = makeDevice { $0.authorization = .authorizedWhenInUse }
        let (manager, _) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 25))
        await device.setAppState(.terminated)
        try await device.feed(stay(at: paris, from: 30, through: 90))
        #expect(await device.launches.isEmpty)
        #expect(await device.activity.relaunches == 0)
        #expect(await device.settings.appState == .terminated)
    }

    @Test("when-in-use: a suspended app is not woken for a region event")
    func whenInUseNotWoken() async throws {
        let device = makeDevice { $0.authorization = .authorizedWhenInUse }
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 25))
        await device.setAppState(.suspended)
        try await device.feed(stay(at: paris, from: 30, through: 90))
        #expect(await device.activity.wakeUps == 0)
        #expect(await device.settings.appState == .suspended)
        #expect(await device.backgroundWindowEnd == nil)
    }

    @Test("background refresh off: a suspended app is not woken for events it cannot receive")
    func backgroundRefreshOffNotWoken() async throws {
        let device = makeDevice { $0.backgroundRefreshEnabled = false }
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        await device.setAppState(.suspended)
        try await device.feed(stay(at: farAway, from: 0, through: 25) + stay(at: paris, from: 30, through: 90))
        #expect(await device.activity.wakeUps == 0)
        #expect(await device.settings.appState == .suspended)
    }

    @Test(
        "when-in-use: back in the foreground, the app is told the state it is in now, once, not the crossings it missed"
    )
    func whenInUseResumes() async throws {
        let device = makeDevice { $0.authorization = .authorizedWhenInUse }
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 25)) // outside, known
        await device.setAppState(.background)
        try await device.feed(stay(at: paris, from: 30, through: 90)) // in, unseen
        await device.setAppState(.foreground)
        try await device.feed(stay(at: paris, from: 95, through: 130))
        #expect(recorder.enters == ["shop"])
        let events = await drain(monitor)
        #expect(events.map(\.state) == [.satisfied])
        #expect(events.first.map { $0.date >= t0.addingTimeInterval(95) } == true, "dated after the app came back")
    }

    // MARK: 4. The initial state is held like a crossing

    @Test("one glitch at registration decides nothing: no exit for a region never entered")
    func glitchAtRegistrationManager() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed([fix(0, paris)] + stay(at: farAway, from: 5, through: 65))
        #expect(recorder.enters.isEmpty && recorder.exits.isEmpty)
        await manager.requestState(for: region("shop"))
        #expect(recorder.states == [.state("shop", .outside)])
    }

    @Test(
        "one glitch at registration: a monitor assuming unsatisfied hears nothing; one assuming unknown hears unsatisfied once"
    )
    func glitchAtRegistrationMonitor() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "assumed", assuming: .unsatisfied)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "unknown")
        try await device.feed([fix(0, paris)] + stay(at: farAway, from: 5, through: 65))
        let events = await drain(monitor)
        #expect(events.map(\.identifier) == ["unknown"])
        #expect(events.map(\.state) == [.unsatisfied])
    }

    @Test("a glitch outside while registering inside gives no exit and no enter")
    func glitchOutsideAtRegistration() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("home"))
        try await device.feed([fix(0, farAway)] + stay(at: paris, from: 5, through: 65))
        #expect(recorder.enters.isEmpty && recorder.exits.isEmpty)
    }

    @Test("after a reboot and unlock one glitch neither relaunches the app nor delivers anything")
    func glitchAfterUnlock() async throws {
        let device = makeDevice()
        let (manager, _) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop", assuming: .unsatisfied)
        try await device.feed(stay(at: farAway, from: 0, through: 40))
        await device.reboot()
        await device.unlock()
        try await device.feed([fix(45, paris)] + stay(at: farAway, from: 50, through: 110))
        #expect(await device.launches.isEmpty)
        let (_, recorder) = await RegionMonitoringTests.manager(on: device)
        #expect(recorder.enters.isEmpty && recorder.exits.isEmpty)
        #expect(await drain(try await Monitor("m", device: device)).isEmpty)
    }

    @Test("the initial state counts once held for the confirmation time: a real entry after it is an entry")
    func heldInitialStateThenEntry() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed(stay(at: farAway, from: 0, through: 20) + stay(at: paris, from: 25, through: 60))
        #expect(recorder.enters == ["shop"])
    }

    // MARK: 5. requestState is answered once the state is known

    @Test("requestState right after startMonitoring is answered when the state becomes known, once")
    func requestStateAnsweredWhenKnown() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        await manager.requestState(for: region("shop"))
        #expect(recorder.states.isEmpty, "not known yet: no answer, not `unknown`")
        try await device.feed(stay(at: paris, from: 0, through: 60))
        #expect(recorder.states == [.state("shop", .inside)])
        #expect(recorder.enters.isEmpty, "already inside is not an entry")
    }

    @Test("asking again before the state is known gets one answer, not one per call")
    func repeatedRequestState() async throws {
        let device = makeDevice { $0.airplaneMode = true }
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        for _ in 0..<1_000 { await manager.requestState(for: region("shop")) }
        #expect(await device.stateRequests.count == 1)
        await device.update { $0.airplaneMode = false }
        try await device.feed(stay(at: farAway, from: 0, through: 25))
        #expect(recorder.states == [.state("shop", .outside)])
    }

    @Test("time alone completes a held initial state: a tick after the fixes it needs answers the waiting request")
    func tickCompletesInitialState() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        await manager.requestState(for: region("shop"))
        try await device.feed((0..<4).map { fix(Double($0), farAway) })
        try await device.receive(.tick(t0.addingTimeInterval(19)))
        #expect(recorder.states.isEmpty)
        try await device.receive(.tick(t0.addingTimeInterval(20)))
        #expect(recorder.states == [.state("shop", .outside)])
    }

    @Test("sparse fixes (one a minute): the initial state is held by the second fix, and the later entry is an entry")
    func sparseFixes() async throws {
        let device = makeDevice()
        let (manager, recorder) = await manager(on: device)
        await manager.startMonitoring(for: region("shop"))
        try await device.feed([fix(0, farAway), fix(60, farAway), fix(120, paris), fix(180, paris)])
        #expect(recorder.enters == ["shop"])
        #expect(recorder.states == [.state("shop", .inside)])
    }

    @Test("a glitch that lies about its accuracy right after a registration while inside decides nothing")
    func lyingGlitchWhileInside() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "home", assuming: .satisfied)
        try await device.feed([fix(0, offset(3_000), accuracy: 2)] + stay(at: paris, from: 5, through: 120))
        #expect(await drain(monitor).isEmpty)
    }

    @Test("a monitor's record and event follow once the state is known")
    func monitorRecordWhenKnown() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.circular(center: paris, radius: 500), identifier: "shop")
        #expect(await monitor.record(for: "shop")?.lastEvent.state == .unknown)
        try await device.feed(stay(at: paris, from: 0, through: 30))
        #expect(await monitor.record(for: "shop")?.lastEvent.state == .satisfied)
        #expect(await drain(monitor).map(\.state) == [.satisfied])
    }

    // MARK: 6. Monitor names

    @Test("a monitor name too long for the store is refused at creation, and nothing is stored")
    func nameTooLong() async throws {
        let store = MonitorStore(directory: temporaryDirectory())
        let device = makeDevice(store: store)
        let name = String(repeating: "a", count: 300)
        await #expect(throws: MonitoringError.self) { _ = try await Monitor(name, device: device) }
        #expect(store.storedNames().isEmpty)
    }

    @Test(
        "monitor names follow Apple's rule: letters and digits, not starting with an underscore",
        arguments: [
            "", "_hidden", "a/b", ".x", "two words", "shop-list", "tab\tname", "nul\u{0}",
        ])
    func invalidNames(name: String) async throws {
        await #expect(throws: MonitoringError.self) { _ = try await Monitor(name, device: makeDevice()) }
    }
}
