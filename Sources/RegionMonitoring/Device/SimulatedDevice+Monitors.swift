import Foundation
import Geofencing

extension SimulatedDevice {
    /// Opens monitor `name` for an app instance: loads it (memory, then store), attaches
    /// `continuation`, and hands over the events that happened while it was closed, in order.
    /// - Returns: the instance's token, which later calls must present.
    public func openMonitor(
        _ name: String, continuation: AsyncStream<MonitorEvent>.Continuation
    ) throws(MonitoringError) -> UInt64 {
        try MonitorName.validate(name)
        if monitors[name]?.continuation != nil { throw .monitorAlreadyOpen(name: name) }
        if monitors[name] == nil {
            monitors[name] = MonitorSlot(snapshot: try store?.load(name: name) ?? MonitorSnapshot(name: name))
            reclaimSlots(of: name)
            syncEngine()
        }
        nextMonitorToken += 1
        let token = nextMonitorToken
        monitors[name]?.continuation = continuation
        monitors[name]?.owner = token
        guard var slot = monitors[name] else { return token }
        let pending = slot.snapshot.pending
        slot.snapshot.pending = []
        slot.persistenceOK = store?.save(slot.snapshot) ?? true
        monitors[name] = slot
        for e in pending { continuation.yield(e) }
        return token
    }

    /// A stored monitor's monitored conditions take their slots back, in the order added; one
    /// that no longer fits (the limit was lowered, or other regions took the slots) is kept
    /// `.unmonitored` with `conditionLimitExceeded`.
    func reclaimSlots(of name: String) {
        guard var slot = monitors[name] else { return }
        var changed = false
        for id in slot.snapshot.order {
            guard let record = slot.snapshot.records[id], record.lastEvent.state != .unmonitored else { continue }
            if !slots.claim(.condition(monitor: name, identifier: id), limit: settings.regionLimit) {
                slot.snapshot.records[id]?.lastEvent = MonitorEvent(
                    identifier: id, state: .unmonitored, date: currentDate,
                    diagnostics: .conditionLimitExceeded)
                changed = true
            }
        }
        if changed { slot.persistenceOK = store?.save(slot.snapshot) ?? true }
        monitors[name] = slot
    }

    /// Whether `token` is the open instance of monitor `name`.
    func owns(_ name: String, _ token: UInt64) -> Bool {
        monitors[name]?.owner == token && monitors[name]?.continuation != nil
    }

    /// The app instance lets go of the monitor (app closed): its stream ends; monitoring
    /// goes on and new events wait for the next instance.
    public func closeMonitor(_ name: String, token: UInt64) {
        guard owns(name, token) else { return }
        monitors[name]?.continuation?.finish()
        monitors[name]?.continuation = nil
        monitors[name]?.owner = nil
    }

    /// Ends monitor `name` for good: every condition stops, its stream ends, its store is deleted.
    public func invalidateMonitor(_ name: String, token: UInt64) {
        guard owns(name, token), let slot = monitors.removeValue(forKey: name) else { return }
        slots.releaseAll { if case .condition(name, _) = $0 { true } else { false } }
        slot.continuation?.finish()
        try? store?.discard(name: name)
        syncEngine()
    }

    /// Adds or replaces condition `id`. A condition the device can monitor takes a slot if one
    /// is free (a replaced one gives its own back first); otherwise it is kept `.unmonitored`
    /// with the reason, and holds no slot (rules 5, 26).
    public func addCondition(
        _ condition: MonitorCondition, identifier id: String, assuming: MonitorState,
        monitor name: String, token: UInt64
    ) {
        guard owns(name, token), var slot = monitors[name] else { return }
        let owner = RegionOwner.condition(monitor: name, identifier: id)
        let replacing = slot.snapshot.records[id] != nil
        slots.release(owner)
        var problem: DiagnosticFlags = []
        if !canMonitor(condition, identifier: id) {
            problem.insert(.conditionUnsupported)
        } else if !slots.claim(owner, limit: settings.regionLimit) {
            problem.insert(.conditionLimitExceeded)
        }
        let first = problem.isEmpty ? assuming : .unmonitored
        let event = MonitorEvent(identifier: id, state: first, date: currentDate, diagnostics: problem)
        if !replacing { slot.snapshot.order.append(id) }
        slot.snapshot.records[id] = MonitorRecord(condition: condition, lastEvent: event)
        slot.persistenceOK = store?.save(slot.snapshot) ?? true
        monitors[name] = slot
        syncEngine()
        if !problem.isEmpty { slot.continuation?.yield(event) }
    }

    /// Whether the device can monitor `condition` at all (kind, validity, size, hardware).
    func canMonitor(_ condition: MonitorCondition, identifier id: String) -> Bool {
        guard let region = condition.monitoredRegion, !id.isEmpty, settings.isRegionMonitoringAvailable else {
            return false
        }
        return (try? region.engineRegion(id: id).validate()) != nil
            && region.boundaryDistance <= settings.maximumRegionMonitoringDistance
    }

    public func removeCondition(_ id: String, monitor name: String, token: UInt64) {
        guard owns(name, token), var slot = monitors[name], slot.snapshot.records.removeValue(forKey: id) != nil else {
            return
        }
        slot.snapshot.order.removeAll { $0 == id }
        slot.snapshot.pending.removeAll { $0.identifier == id }
        slot.persistenceOK = store?.save(slot.snapshot) ?? true
        monitors[name] = slot
        slots.release(.condition(monitor: name, identifier: id))
        syncEngine()
    }

    public func identifiers(of name: String) -> [String] { monitors[name]?.snapshot.order ?? [] }

    public func record(_ id: String, of name: String) -> MonitorRecord? { monitors[name]?.snapshot.records[id] }

    func deliverToMonitor(_ e: TransitionEvent, name: String, id: String) {
        guard var slot = monitors[name], var record = slot.snapshot.records[id] else { return }
        let state: MonitorState = e.kind == .enter ? .satisfied : .unsatisfied
        // An initial determination that matches the assumed state is not news.
        if e.isInitial, record.lastEvent.state == state { return }
        // Blocked events neither wake nor relaunch the app (rule 15).
        let open = slot.continuation != nil
        let blockers = settings.deliveryBlockers(appInUse: open && settings.appState.isInUse)
        guard blockers.isDisjoint(with: .blocking), admitEvent(at: e.time) else { return }
        slot = monitors[name] ?? slot
        var event = MonitorEvent(identifier: id, state: state, date: e.time, diagnostics: blockers)
        record.lastEvent = event
        slot.snapshot.records[id] = record
        if !open { slot.snapshot.pending.append(event) }
        slot.persistenceOK = store?.save(slot.snapshot) ?? true
        if !slot.persistenceOK { event.diagnostics.insert(.persistenceUnavailable) }
        monitors[name] = slot
        if let tap = slot.tap {
            var t = e
            t.regionID = id
            tap(t)
        }
        slot.continuation?.yield(event)
    }

    /// Installs (or clears) the transition tap of monitor `name` (see `MonitorSlot.tap`).
    public func setTransitionTap(_ tap: (@Sendable (TransitionEvent) -> Void)?, monitor name: String) {
        monitors[name]?.tap = tap
    }
}
