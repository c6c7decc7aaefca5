import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

/// A relaunch for a region event, wired as Examples/ShopAlerts wires it (GeofenceStack.launch),
/// in every order of its steps.
@Suite("Relaunch: the event reaches the planner whatever the app wires first")
struct RelaunchWiringTests {
    /// The example's setup steps after the backend exists.
    enum Step: CaseIterable, CustomStringConvertible {
        /// A second manager with the authorisation watcher as its delegate.
        case watcher
        /// The planner's manager, its adapter, the planner and its `restore()`.
        case planner
        /// The backend handles the callbacks the system delivered at relaunch.
        case settle

        var description: String {
            switch self {
            case .watcher: "watcher"
            case .planner: "planner"
            case .settle: "settle"
            }
        }
    }

    /// Every order of `steps`.
    static func orders(_ steps: [Step]) -> [[Step]] {
        guard steps.count > 1 else { return [steps] }
        return steps.indices.flatMap { i in
            var rest = steps
            let first = rest.remove(at: i)
            return orders(rest).map { [first] + $0 }
        }
    }

    /// The example's authorisation watcher: hears the status, ignores region events.
    final class Watcher: LocationManagerDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var statuses: [AuthorizationStatus] = []
        var heard: [AuthorizationStatus] { lock.withLock { statuses } }
        func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus) {
            lock.withLock { statuses.append(status) }
        }
    }

    static let shop = Region.circle(identifier: "shop", center: offset(1_000), radius: 300)
    static let sizing = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 300, maximumSpeed: 10, maximumFixInterval: 1)

    static func source() throws -> PlannerSource {
        PlannerSource(prefix: "s.", catalogue: try Catalogue([CatalogueEntry(region: shop)]))
    }

    /// A first launch plans at Lyon and is terminated; the device walks into the shop while the
    /// app is not running, so the system holds the entry for the relaunch.
    static func terminatedBeforeTheShop(
        store: MemoryPlannerStore, timing: FakeCoreLocation.LocationRequestTiming = .lastPosition
    ) async throws -> FakeCoreLocation {
        let system = FakeCoreLocation(authorization: .authorizedAlways, locationRequestTiming: timing)
        let backend = await CoreLocationManagerBackend(system: system, locationFreshness: .infinity, now: { t0 })
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(backend: backend))
        let planner = try RegionPlanner(monitor: slots, sources: [try source()], sizing: sizing, store: store)
        try await system.move(to: fix(0, lyon))
        await backend.settle()
        try await planner.start(at: fix(0, lyon))
        await backend.settle()
        #expect(await system.systemTable.contains { $0.identifier == "s.shop" })
        await system.terminateApp()
        // North at 10 m/s to the shop's centre, then a minute in it.
        for s in stride(from: 5.0, through: 160, by: 5) { try await system.move(to: fix(s, offset(min(s, 100) * 10))) }
        #expect(await system.sent.contains(.didEnterRegion(identifier: "s.shop")))
        return system
    }

    @Test("the relaunch's entry reaches the planner in every order of the example's setup steps")
    func everyWiringOrder() async throws {
        let orders = Self.orders(Step.allCases)
        #expect(orders.count == 6)
        for order in orders {
            let store = MemoryPlannerStore()
            let system = try await Self.terminatedBeforeTheShop(store: store)
            let backend = await CoreLocationManagerBackend(system: system, locationFreshness: .infinity, now: { t0 })
            let watcher = Watcher()
            var statusManager: LocationManager?
            var wired: (LocationManagerSlotMonitor, RegionPlanner<LocationManagerSlotMonitor>)?
            for step in order {
                switch step {
                case .watcher:
                    let manager = await LocationManager(backend: backend)
                    await manager.setDelegate(watcher)
                    statusManager = manager
                case .planner:
                    let slots = await LocationManagerSlotMonitor(manager: await LocationManager(backend: backend))
                    let planner = try RegionPlanner(
                        monitor: slots, sources: [try Self.source()], sizing: Self.sizing, store: store)
                    #expect(try await planner.restore())
                    wired = (slots, planner)
                case .settle:
                    await backend.settle()
                }
            }
            await backend.settle()
            let (slots, planner) = try #require(wired)
            var entered: [String] = []
            for event in await slots.takeEvents() {
                entered += try await planner.handle(event).filter { $0.kind == .enter }.map(\.identifier)
            }
            #expect(entered == ["shop"], "wiring order \(order)")
            #expect(watcher.heard == [.authorizedAlways], "the watcher still hears the status (\(order))")
            withExtendedLifetime(statusManager) {}
        }
    }

    @Test("a delegate set after the hold's seconds gets nothing old; one set within gets each event once")
    func holdIsBoundedInTime() async throws {
        let clock = TestClock(t0)
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let backend = await CoreLocationManagerBackend(
            system: system, eventHold: .init(seconds: 60, count: 100), now: { clock.now })
        let first = await LocationManager(backend: backend)
        let early = Recorder()
        await first.setDelegate(early)
        await first.startMonitoring(for: circle("home"))
        try await system.move(to: fix(0, offset(3_000)))
        for f in stay(at: lyon, from: 5, through: 40) { try await system.move(to: f) }
        await backend.settle()
        #expect(early.calls.contains(.enter("home")))
        clock.set(t0.addingTimeInterval(50)) // the backend's clock: 50 s after the entry arrived
        let within = Recorder()
        await (await LocationManager(backend: backend)).setDelegate(within)
        #expect(within.calls == [.auth(.authorizedAlways), .enter("home"), .state("home", .inside)])
        await first.setDelegate(within) // the same delegate again: nothing twice
        #expect(within.calls.filter { $0 == .enter("home") }.count == 1)
        clock.set(t0.addingTimeInterval(200))
        let late = Recorder()
        await (await LocationManager(backend: backend)).setDelegate(late)
        #expect(late.calls == [.auth(.authorizedAlways)], "older than the hold: not replayed")
    }

    @Test("the hold keeps at most its count, dropping the oldest")
    func holdIsBoundedInCount() {
        var held = HeldRegionEvents(hold: .init(seconds: 60, count: 3))
        for i in 0..<5 { held.keep(.didEnterRegion(identifier: "r\(i)"), at: t0, deliveredTo: []) }
        #expect(held.count == 3 && held.dropped == 2)
        #expect(held.unseen(by: Recorder(), at: t0) == (2..<5).map { .didEnterRegion(identifier: "r\($0)") })
        var none = HeldRegionEvents(hold: .init(seconds: 60, count: 0))
        none.keep(.didEnterRegion(identifier: "r"), at: t0, deliveredTo: [])
        #expect(none.count == 0)
    }
}
