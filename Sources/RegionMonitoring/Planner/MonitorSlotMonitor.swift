import Foundation
import Geofencing
import RegionPlanner

/// RegionPlanner's ``SlotMonitor`` on top of a ``Monitor``: lets a `RegionPlanner` serve an
/// unlimited catalogue through the backend's per-app slots, under the device's app-life
/// rules (a suspended app is woken for each event, a terminated one relaunched).
///
/// ```swift
/// let monitor = try await Monitor("catalogue", device: device)
/// let slots = await MonitorSlotMonitor(monitor: monitor)          // capacity = regionLimit
/// let planner = try RegionPlanner(monitor: slots, sources: [shops], sizing: sizing)
/// try await planner.start(at: here)
/// try await device.receive(.fix(fix))
/// for event in slots.takeEvents() { notify(try await planner.handle(event)) }
/// ```
///
/// - **Limit**: ``Monitor/add(_:identifier:assuming:)`` does not throw at the per-app limit;
///   it keeps the condition `.unmonitored` and flags `conditionLimitExceeded`. `register`
///   turns that flag into ``SlotMonitorError/slotLimitExceeded(capacity:identifier:)`` and
///   removes the condition again, so a refused region takes no identifier. A condition the
///   device cannot monitor (`conditionUnsupported`; multipolygons are not conditions) throws
///   ``SlotMonitorError/rejected(identifier:reason:)``.
/// - **Events**: every event the device hands to the monitor is also given to this adapter as
///   the engine's `TransitionEvent` (with the fix that confirmed it, which the planner needs to
///   re-plan); ``takeEvents()`` returns them, after the `SlotMonitor` contract: the first
///   determination of a region is silent unless its `initialTrigger` asks for it, and the
///   region's `notifyOnEntry` / `notifyOnExit` flags apply.
/// - **Late refusals**: a condition the system stops monitoring after `register` returned (on
///   Core Location the limit over every monitor is answered later, as an `.unmonitored` event)
///   is dropped here and returned by ``takeFailures()`` as
///   ``SlotMonitorError/slotLimitExceeded(capacity:identifier:)`` (or `rejected`); ``arrivals``
///   wakes the owner for it as for a transition.
/// - **State**: ``state(of:)`` reads the monitor's record (`satisfied` → inside,
///   `unsatisfied` → outside, otherwise unknown).
///
/// - **Relaunch**: ``registeredIdentifiers`` and ``state(of:)`` read the monitor itself, so an
///   adapter over a reopened monitor answers for the regions an earlier launch registered.
/// - **Location updates**: ``setLocationUpdates(_:)`` records the planner's request in
///   ``locationUpdatesRequested``; the owner then passes the device's fixes to
///   `RegionPlanner.observe(_:)` (the simulated device has no location-update stream of its own).
///
/// Sendable: the region table and the request flag are read and written under a lock only.
/// Cost per call: one or two round trips to the device actor.
public final class MonitorSlotMonitor: SlotMonitor, @unchecked Sendable {
    /// The monitor the regions are added to.
    public let monitor: Monitor
    public let slotCapacity: Int
    /// The event latency the planner sizes for: the backend's by default (Core Location: 300 s,
    /// ``ReplanSizing/coreLocationEventLatency``; the simulated device: 0).
    public let eventLatency: TimeInterval
    private let inbox = TransitionInbox()
    private let lock = NSLock()
    private var _regions: [String: Region] = [:]
    private var _updates = false
    private var _failures: [SlotMonitorError] = []
    private let arrivalsContinuation: AsyncStream<Void>.Continuation
    /// Yields once for each transition or late refusal the backend hands over: the owner's cue
    /// to call ``takeEvents()`` and ``takeFailures()`` (transitions may come after the app's own
    /// event, once the backend has a position for them).
    public let arrivals: AsyncStream<Void>
    /// Unregistered regions, until the next ``takeEvents()``: their events confirmed before the
    /// removal still arrive, filtered by their flags.
    private var _retired: [String: Region] = [:]
    private var regions: [String: Region] {
        get { lock.withLock { _regions } }
        set { lock.withLock { _regions = newValue } }
    }

    /// Wraps `monitor`; the capacity is the device's ``DeviceSettings/regionLimit`` minus the
    /// regions the app already monitors elsewhere (at least 0). The monitor's own conditions
    /// count only when they hold a slot: one kept `.unmonitored` (refused at the limit) holds none.
    /// `eventLatency`: how late the platform may report a crossing (seconds; `nil`: the
    /// backend's ``MonitorBackend/eventLatency``).
    public init(monitor: Monitor, eventLatency: TimeInterval? = nil) async {
        self.monitor = monitor
        self.eventLatency = eventLatency ?? monitor.backend.eventLatency
        (arrivals, arrivalsContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let backend = monitor.backend
        let limit = await backend.regionLimit
        let used = await backend.monitoredRegionCount
        var own = 0
        for id in await monitor.identifiers where await monitor.record(for: id)?.lastEvent.state != .unmonitored {
            own += 1
        }
        slotCapacity = max(0, limit - (used - own))
        let inbox = self.inbox
        let arrived = arrivalsContinuation
        await backend.setTransitionTap(
            { event in
                inbox.append(event)
                arrived.yield()
            }, monitor: monitor.name)
        await backend.setRefusalTap({ [weak self] event in self?.refused(event) }, monitor: monitor.name)
    }

    /// The system stopped monitoring a condition after `register` returned.
    private func refused(_ event: MonitorEvent) {
        let failure: SlotMonitorError =
            event.diagnostics.contains(.conditionLimitExceeded)
            ? .slotLimitExceeded(capacity: slotCapacity, identifier: event.identifier)
            : .rejected(identifier: event.identifier, reason: "the system stopped monitoring it")
        lock.withLock {
            guard _regions.removeValue(forKey: event.identifier) != nil else { return }
            _failures.append(failure)
        }
        arrivalsContinuation.yield()
    }

    /// Registrations the system refused after `register` returned, since the last call; the
    /// planner hears of them through ``RegionPlanner/handleRefusal(_:)``.
    public func takeFailures() -> [SlotMonitorError] {
        lock.withLock {
            defer { _failures = [] }
            return _failures
        }
    }

    public func register(_ region: Region) async throws(SlotMonitorError) {
        let id = region.identifier
        let condition: MonitorCondition
        switch region.shape {
        case .circle(let center, let radius):
            condition = .circular(center: center, radius: radius)
        case .polygon(let p):
            condition = .polygon(exterior: p.exterior, holes: p.holes)
        case .multiPolygon:
            throw .rejected(identifier: id, reason: "a multipolygon cannot be a monitor condition")
        }
        await monitor.add(condition, identifier: id, assuming: .unknown)
        let flags = await monitor.record(for: id)?.lastEvent.diagnostics ?? []
        if flags.contains(.conditionLimitExceeded) {
            await monitor.remove(id)
            throw .slotLimitExceeded(capacity: slotCapacity, identifier: id)
        }
        if flags.contains(.conditionUnsupported) {
            await monitor.remove(id)
            throw .rejected(identifier: id, reason: "the device cannot monitor this condition")
        }
        regions[id] = region
    }

    public func unregister(identifier: String) async {
        lock.withLock {
            if let r = _regions.removeValue(forKey: identifier) { _retired[identifier] = r }
        }
        await monitor.remove(identifier)
    }

    public func state(of identifier: String) async -> RegionState {
        switch await monitor.record(for: identifier)?.lastEvent.state {
        case .satisfied: return .inside
        case .unsatisfied: return .outside
        default: return .unknown
        }
    }

    /// Identifiers the monitor holds (this launch's and earlier ones').
    public var registeredIdentifiers: [String] {
        get async { await monitor.identifiers }
    }

    public func setLocationUpdates(_ enabled: Bool) async {
        lock.withLock { _updates = enabled }
    }

    /// Whether the planner has asked for continuous location updates.
    public var locationUpdatesRequested: Bool { lock.withLock { _updates } }

    /// The transitions delivered since the last call, in order, filtered by the `SlotMonitor`
    /// contract (see the type's documentation). Events of regions unregistered since they were
    /// confirmed are kept: the planner takes those it unregistered at or after their fix.
    public func takeEvents() -> [TransitionEvent] {
        var out: [TransitionEvent] = []
        let regions = lock.withLock {
            defer { _retired = [:] }
            return _regions.merging(_retired) { current, _ in current }
        }
        for e in inbox.drain() {
            // A region of an earlier launch (flags unknown): its crossings, not its first state.
            guard let region = regions[e.regionID] else {
                if !e.isInitial, e.regionID != "" { out.append(e) }
                continue
            }
            if e.isInitial {
                let wanted: InitialTrigger = e.kind == .enter ? .enter : .exit
                if !region.initialTrigger.contains(wanted) { continue }
            }
            if e.kind == .enter, !region.notifyOnEntry { continue }
            if e.kind == .exit, !region.notifyOnExit { continue }
            out.append(e)
        }
        return out
    }
}

/// Transitions handed over by the device actor, read by the adapter's owner.
final class TransitionInbox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [TransitionEvent] = []
    func append(_ e: TransitionEvent) { lock.withLock { events.append(e) } }
    func drain() -> [TransitionEvent] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }
}
