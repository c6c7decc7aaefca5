import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

/// A relaunched app has about 10 s: the event must reach the notification before they end,
/// whether or not a position comes (time injected: a manual clock and sleeper, no sleeping).
@Suite("Background window: a region event is handed over at once, a fix only within the time left")
struct BackgroundWindowTests {
    /// How the system's position stands at the relaunch.
    enum Fix: CaseIterable {
        /// The system holds no location and a request fails.
        case none
        /// The last location is minutes old and a request is never answered.
        case neverComes
    }

    /// The example's loop after a relaunch for an entry: the events the planner turns into
    /// notifications, and the background seconds that had passed when they were posted.
    func relaunch(
        _ situation: Fix
    ) async throws -> (
        posted: [String], secondsUsed: TimeInterval, background: FakeBackgroundExecution,
        sleeper: ManualSleeper, eventFix: LocationFix?, backend: CoreLocationManagerBackend
    ) {
        let store = MemoryPlannerStore()
        let system = try await RelaunchWiringTests.terminatedBeforeTheShop(
            store: store, timing: situation == .none ? .lastPosition : .nextPosition)
        if situation == .none { await system.forgetLocation() }
        let clock = TestClock(t0.addingTimeInterval(460)) // the entry delivered minutes late
        let sleeper = ManualSleeper()
        let background = FakeBackgroundExecution(timeRemaining: 10)
        let backend = await CoreLocationManagerBackend(
            system: system, background: background, now: { clock.now }, sleep: { await sleeper.sleep($0) })
        let slots = await LocationManagerSlotMonitor(
            manager: await LocationManager(backend: backend), now: { clock.now })
        let planner = try RegionPlanner(
            monitor: slots, sources: [try RelaunchWiringTests.source()], sizing: RelaunchWiringTests.sizing,
            store: store)
        _ = try await planner.restore()
        await backend.settle()
        // The app's loop, as a task: it must finish while the background seconds last.
        let done = Flag()
        let loop = Task {
            defer { done.set() }
            var posted: [String] = []
            var first: LocationFix?
            for event in await slots.takeEvents() {
                first = first ?? event.fix
                posted += try await planner.handle(event).filter { $0.kind == .enter }.map(\.identifier)
            }
            return (posted, first)
        }
        var used: TimeInterval = 0
        while used < 10, !(await eventually(turns: 2_000) { done.isSet }) {
            await sleeper.advance(by: 1)
            await background.pass(1)
            used += 1
        }
        await sleeper.advance(by: 60) // whatever still waits ends (today's 30 s request)
        let (posted, eventFix) = try await loop.value
        return (posted, used, background, sleeper, eventFix, backend)
    }

    @Test("with no fix at all, the notification posts before a 10 s window ends", arguments: Fix.allCases)
    func postsWithinTheWindow(_ situation: Fix) async throws {
        let run = try await relaunch(situation)
        #expect(run.posted == ["shop"])
        #expect(run.secondsUsed < 10, "posted within the window")
        #expect(run.eventFix?.timestamp == t0.addingTimeInterval(460), "no stale fix is the event's: handed over now")
        #expect(run.eventFix?.horizontalAccuracy == 300, "the region's own fix: within its radius of its centre")
    }

    @Test("the background task begun for the event ends before the time left runs out", arguments: Fix.allCases)
    func taskEndsInTime(_ situation: Fix) async throws {
        let run = try await relaunch(situation)
        #expect(await run.background.begun == 1)
        await run.sleeper.advance(by: 7) // 10 s left less the 3 s reserve
        #expect(await eventually { await run.background.openTasks.isEmpty })
        await run.background.pass(10)
        #expect(await run.background.expiredTasks == 0, "never overstayed: the system never ends it")
        #expect(await run.background.misusedEnds == 0)
        withExtendedLifetime(run.backend) {}
    }

    @Test("a fresh position ends the background task at once")
    func positionEndsTheTask() async throws {
        let store = MemoryPlannerStore()
        let system = try await RelaunchWiringTests.terminatedBeforeTheShop(store: store)
        let background = FakeBackgroundExecution(timeRemaining: 10)
        let sleeper = ManualSleeper()
        let backend = await CoreLocationManagerBackend(
            system: system, locationFreshness: .infinity, background: background, now: { t0 },
            sleep: { await sleeper.sleep($0) })
        await backend.settle()
        #expect(await background.openTasks.count == 1)
        await backend.setLocationUpdates(true)
        try await system.move(to: fix(170, offset(1_000)))
        await backend.settle()
        #expect(await eventually { await background.openTasks.isEmpty })
        #expect(await backend.eventLocation()?.timestamp == t0.addingTimeInterval(170))
    }

    @Test("the hold is the time left less the reserve, never negative, never above the longest")
    func holdBounds() {
        let window = CoreLocationManagerBackend.BackgroundWindow(reserve: 3, longest: 25)
        #expect(window.hold(remaining: 10) == 7)
        #expect(window.hold(remaining: 2) == 0)
        #expect(window.hold(remaining: .infinity) == 25)
        #expect(window.hold(remaining: -5) == 0)
        #expect(window.hold(remaining: .nan) == 0, "no figure: no hold")
        let unbounded = CoreLocationManagerBackend.BackgroundWindow(reserve: 3, longest: .infinity)
        #expect(unbounded.hold(remaining: .infinity) == 0, "never an endless task")
        #expect(unbounded.hold(remaining: 10) == 7)
    }

    @Test("the fake refuses a task with no time left and counts a double end")
    func fakeIsStrict() async {
        let background = FakeBackgroundExecution(timeRemaining: 1)
        let id = await background.beginTask(named: "a")
        #expect(id != nil)
        await background.pass(1)
        #expect(await background.expiredTasks == 1, "open when the time ran out")
        #expect(await background.beginTask(named: "b") == nil, "no time left: not granted")
        if let id { await background.endTask(id) }
        #expect(await background.misusedEnds == 1)
    }
}

/// A flag set once, read from any task.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
