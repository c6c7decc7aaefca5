import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

/// A ``Monitor`` backend on Core Location's `CLMonitor` (through a ``SystemMonitorService``:
/// the real one on Apple platforms, ``FakeConditionMonitors`` in tests).
///
/// ```swift
/// let backend = CoreLocationMonitorBackend(service: AppleMonitorService())
/// let monitor = try await Monitor("shops", backend: backend)
/// await monitor.add(.circular(center: shop, radius: 150), identifier: "shop", assuming: .unsatisfied)
/// for await event in monitor.events { … }
/// ```
///
/// What it adds to `CLMonitor`, all platform-neutral and tested against the fake:
/// - **Checked before adding**: a condition that is not a circle with a positive finite
///   radius and a non-empty identifier is kept here `.unmonitored` with `conditionUnsupported`;
///   a 21st condition (``limit``, over every monitor this backend opened; a replacement does not
///   count) is kept `.unmonitored` with `conditionLimitExceeded`, and the system is not asked.
///   Each refusal is also reported as an event, as `CLMonitor` reports its own.
/// - **One open instance per name**, names checked by the package's rule; the system monitor
///   stays open while the app's ``Monitor`` is closed, and the events it reports meanwhile are
///   handed, in order, to the next ``Monitor`` with that name.
/// - **Planner**: with a `locationSource`, each satisfied / unsatisfied event is also given to
///   a ``MonitorSlotMonitor`` tap as a transition carrying that source's fix (`CLMonitor`
///   events carry no position); the first determination of a condition is marked initial.
public actor CoreLocationMonitorBackend: MonitorBackend {
    /// Where monitors are opened.
    public nonisolated let service: any SystemMonitorService
    /// Most conditions the app may monitor (Core Location: 20).
    public nonisolated let limit: Int
    let locationSource: (@Sendable () async -> LocationFix?)?
    let now: @Sendable () -> Date
    var monitors: [String: Slot] = [:]
    /// Names whose system monitor is being opened.
    var opening: Set<String> = []
    var nextToken: UInt64 = 0
    /// Events received from the system so far and fully handled (for diagnostics and tests).
    public private(set) var receivedCount = 0

    struct Slot {
        let system: any SystemConditionMonitor
        var pump: Task<Void, Never>?
        var continuation: AsyncStream<MonitorEvent>.Continuation?
        var owner: UInt64?
        var pending: [MonitorEvent] = []
        /// Conditions refused here (never given to the system), in the order added.
        var refused: [String: MonitorRecord] = [:]
        var refusedOrder: [String] = []
        var lastStates: [String: MonitorState] = [:]
        var tap: (@Sendable (TransitionEvent) -> Void)?
    }

    /// - Parameters:
    ///   - limit: conditions the app may monitor at once (Core Location: 20).
    ///   - locationSource: the fix given with each transition to a planner's tap (for example
    ///     a ``CoreLocationManagerBackend``'s `currentLocation()`); without one, no transitions.
    ///   - now: the date of the events that report a refusal.
    public init(
        service: any SystemMonitorService, limit: Int = 20,
        locationSource: (@Sendable () async -> LocationFix?)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.service = service
        self.limit = limit
        self.locationSource = locationSource
        self.now = now
    }

    public func openMonitor(
        _ name: String, continuation: AsyncStream<MonitorEvent>.Continuation
    ) async throws(MonitoringError) -> UInt64 {
        try MonitorName.validate(name)
        if monitors[name]?.continuation != nil { throw .monitorAlreadyOpen(name: name) }
        if monitors[name] == nil {
            // One system monitor per name: an open racing this one is a second open.
            guard !opening.contains(name) else { throw .monitorAlreadyOpen(name: name) }
            opening.insert(name)
            let system = await service.openMonitor(named: name)
            opening.remove(name)
            monitors[name] = Slot(system: system)
            monitors[name]?.pump = Task { [weak self] in
                for await event in system.events {
                    guard let self else { return }
                    await self.receive(event, monitor: name)
                }
            }
        }
        if monitors[name]?.continuation != nil { throw .monitorAlreadyOpen(name: name) }
        nextToken += 1
        monitors[name]?.continuation = continuation
        monitors[name]?.owner = nextToken
        for event in monitors[name]?.pending ?? [] { continuation.yield(event) }
        monitors[name]?.pending = []
        return nextToken
    }

    public func addCondition(
        _ condition: MonitorCondition, identifier id: String, assuming: MonitorState,
        monitor name: String, token: UInt64
    ) async {
        guard owns(name, token), let system = monitors[name]?.system else { return }
        let replacing = await system.identifiers.contains(id)
        guard case .circular(let center, let radius) = condition, !id.isEmpty, radius.isFinite, radius > 0,
            (try? Coordinate(latitude: center.latitude, longitude: center.longitude)) != nil
        else {
            if replacing { await system.remove(id) }
            return refuse(condition, id, in: name, because: .conditionUnsupported)
        }
        if !replacing, await monitoredRegionCount >= limit {
            return refuse(condition, id, in: name, because: .conditionLimitExceeded)
        }
        monitors[name]?.refused[id] = nil
        monitors[name]?.refusedOrder.removeAll { $0 == id }
        monitors[name]?.lastStates[id] = assuming
        await system.add(SystemCondition(center: center, radius: radius), identifier: id, assuming: assuming)
    }

    public func removeCondition(_ id: String, monitor name: String, token: UInt64) async {
        guard owns(name, token), let system = monitors[name]?.system else { return }
        monitors[name]?.refused[id] = nil
        monitors[name]?.refusedOrder.removeAll { $0 == id }
        monitors[name]?.lastStates[id] = nil
        monitors[name]?.pending.removeAll { $0.identifier == id }
        await system.remove(id)
    }

    public func identifiers(of name: String) async -> [String] {
        guard let slot = monitors[name] else { return [] }
        let held = await slot.system.identifiers
        return held + slot.refusedOrder.filter { !held.contains($0) }
    }

    public func record(_ id: String, of name: String) async -> MonitorRecord? {
        guard let slot = monitors[name] else { return nil }
        if let refused = slot.refused[id] { return refused }
        guard let r = await slot.system.record(for: id), let c = r.condition else { return nil }
        let e = r.lastEvent
        return MonitorRecord(
            condition: .circular(center: c.center, radius: c.radius),
            lastEvent: MonitorEvent(identifier: e.identifier, state: e.state, date: e.date, diagnostics: e.diagnostics))
    }

    public func closeMonitor(_ name: String, token: UInt64) {
        guard owns(name, token) else { return }
        monitors[name]?.continuation?.finish()
        monitors[name]?.continuation = nil
        monitors[name]?.owner = nil
    }

    public func invalidateMonitor(_ name: String, token: UInt64) async {
        guard owns(name, token), let slot = monitors.removeValue(forKey: name) else { return }
        for id in await slot.system.identifiers { await slot.system.remove(id) }
        slot.pump?.cancel()
        slot.continuation?.finish()
    }

    public var regionLimit: Int { limit }

    /// Conditions the system monitors for the monitors this backend opened.
    public var monitoredRegionCount: Int {
        get async {
            var n = 0
            for slot in monitors.values { n += await slot.system.identifiers.count }
            return n
        }
    }

    public func setTransitionTap(_ tap: (@Sendable (TransitionEvent) -> Void)?, monitor name: String) {
        monitors[name]?.tap = tap
    }

    // MARK: Internals

    func owns(_ name: String, _ token: UInt64) -> Bool {
        monitors[name]?.owner == token && monitors[name]?.continuation != nil
    }

    func refuse(_ condition: MonitorCondition, _ id: String, in name: String, because flag: DiagnosticFlags) {
        let event = MonitorEvent(identifier: id, state: .unmonitored, date: now(), diagnostics: flag)
        if monitors[name]?.refused[id] == nil { monitors[name]?.refusedOrder.append(id) }
        monitors[name]?.refused[id] = MonitorRecord(condition: condition, lastEvent: event)
        monitors[name]?.continuation?.yield(event)
    }

    /// One event from the system: to the open ``Monitor`` (or kept for the next one), and to
    /// the planner's tap as a transition with the location source's fix.
    func receive(_ e: SystemMonitorEvent, monitor name: String) async {
        guard monitors[name] != nil else {
            receivedCount += 1
            return
        }
        let event = MonitorEvent(identifier: e.identifier, state: e.state, date: e.date, diagnostics: e.diagnostics)
        let first = (monitors[name]?.lastStates[e.identifier] ?? .unknown) == .unknown
        monitors[name]?.lastStates[e.identifier] = e.state
        // The tap first: once the app sees the event, the planner's transition is waiting.
        let kind: TransitionEvent.Kind? =
            switch e.state {
            case .satisfied: .enter
            case .unsatisfied: .exit
            default: nil
            }
        if let kind, monitors[name]?.tap != nil, let source = locationSource, let fix = await source() {
            monitors[name]?.tap?(
                TransitionEvent(
                    kind: kind, regionID: e.identifier, subject: fix.subject, fix: fix,
                    time: e.date, crossedAt: e.date, isInitial: first))
        }
        if let c = monitors[name]?.continuation { c.yield(event) } else { monitors[name]?.pending.append(event) }
        receivedCount += 1
    }
}
