import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner

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
///   handed, in order, to the next ``Monitor`` with that name. A name's system monitor is
///   opened once for the life of this backend — invalidating a ``Monitor`` empties it but keeps
///   it — because a second `CLMonitor` with a name in use crashes the app.
/// - **Events first**: an event reaches the app's ``Monitor`` as soon as it arrives; nothing
///   waits for a position (a background launch has seconds to post its notification).
/// - **Planner**: with a `locationSource`, each satisfied / unsatisfied event is also given to
///   a ``MonitorSlotMonitor`` tap as a transition carrying that source's fix (`CLMonitor`
///   events carry no position), in order, by a queue of its own; the first determination of a
///   condition is marked initial — for a condition an earlier launch added, measured from the
///   state the system's record holds when the monitor is opened. A condition the system reports `.unmonitored` after it was
///   added (its limit, counted over every app monitor, answered late) goes to the refusal tap.
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
    /// Transitions waiting for a fix before they reach a planner's tap, in order.
    let tapQueue: AsyncStream<(monitor: String, event: SystemMonitorEvent, first: Bool)>.Continuation
    let tapItems: AsyncStream<(monitor: String, event: SystemMonitorEvent, first: Bool)>
    var tapWorker: Task<Void, Never>?
    var tapsQueued = 0
    var tapsGiven = CompletionCount()
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
        var refusalTap: (@Sendable (MonitorEvent) -> Void)?
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
        (tapItems, tapQueue) = AsyncStream.makeStream(
            of: (monitor: String, event: SystemMonitorEvent, first: Bool).self, bufferingPolicy: .unbounded)
    }

    deinit {
        tapQueue.finish()
        tapWorker?.cancel()
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
            var slot = Slot(system: system)
            slot.lastStates = await Self.lastStates(of: system)
            opening.remove(name)
            monitors[name] = slot
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

    /// The states the system holds for the conditions an earlier launch added (each record's
    /// last event), so that a relaunch's first event of such a condition is a crossing, as it
    /// would have been in the launch that added it — not a first determination.
    private static func lastStates(of system: any SystemConditionMonitor) async -> [String: MonitorState] {
        var states: [String: MonitorState] = [:]
        for id in await system.identifiers {
            if let record = await system.record(for: id) { states[id] = record.lastEvent.state }
        }
        return states
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
        guard owns(name, token), let slot = monitors[name] else { return }
        for id in await slot.system.identifiers { await slot.system.remove(id) }
        slot.continuation?.finish()
        // Emptied, not closed: the name's system monitor is reused by the next open.
        monitors[name] = Slot(system: slot.system, pump: slot.pump)
    }

    public var regionLimit: Int { limit }

    /// Core Location's stated latency, ``RegionPlanner/ReplanSizing/coreLocationEventLatency``.
    public nonisolated var eventLatency: TimeInterval { ReplanSizing.coreLocationEventLatency }

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
        if tap != nil, tapWorker == nil {
            let items = tapItems
            tapWorker = Task { [weak self] in
                for await item in items {
                    guard let self else { return }
                    await self.giveToTap(item.event, monitor: item.monitor, first: item.first)
                }
            }
        }
    }

    public func setRefusalTap(_ tap: (@Sendable (MonitorEvent) -> Void)?, monitor name: String) {
        monitors[name]?.refusalTap = tap
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

    /// One event from the system: to the open ``Monitor`` at once (or kept for the next one),
    /// then queued for the planner's tap, which waits for a fix on its own queue.
    func receive(_ e: SystemMonitorEvent, monitor name: String) async {
        guard monitors[name] != nil else {
            receivedCount += 1
            return
        }
        let event = MonitorEvent(identifier: e.identifier, state: e.state, date: e.date, diagnostics: e.diagnostics)
        let previous = monitors[name]?.lastStates[e.identifier]
        let first = (previous ?? .unknown) == .unknown
        monitors[name]?.lastStates[e.identifier] = e.state
        if let c = monitors[name]?.continuation { c.yield(event) } else { monitors[name]?.pending.append(event) }
        if e.state == .unmonitored, previous != nil, previous != .unmonitored {
            monitors[name]?.refusalTap?(event) // added, then refused by the system: a late answer
        }
        if e.state == .satisfied || e.state == .unsatisfied, monitors[name]?.tap != nil, locationSource != nil {
            tapsQueued += 1
            tapQueue.yield((name, e, first))
        }
        receivedCount += 1
    }

    /// Gives one event to the planner's tap as a transition with the location source's fix.
    func giveToTap(_ e: SystemMonitorEvent, monitor name: String, first: Bool) async {
        defer { tapsGiven.finishOne() }
        guard let source = locationSource, let fix = await source() else { return }
        let kind: TransitionEvent.Kind = e.state == .satisfied ? .enter : .exit
        monitors[name]?.tap?(
            TransitionEvent(
                kind: kind, regionID: e.identifier, subject: fix.subject, fix: fix,
                time: e.date, crossedAt: e.date, isInitial: first))
    }

    /// Returns once every transition queued for a planner's tap so far has been given to it (or
    /// dropped for want of a fix).
    public func settleTaps() async {
        let target = tapsQueued
        guard !tapsGiven.reached(target) else { return }
        await withCheckedContinuation { tapsGiven.resume($0, at: target) }
    }
}
