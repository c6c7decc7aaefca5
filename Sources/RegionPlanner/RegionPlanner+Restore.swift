import Foundation
import Geofencing

extension RegionPlanner {
    /// Continues a planner of an earlier launch from its store: takes its saved state,
    /// reconciles it with what the monitor still holds (planner-owned regions the state does
    /// not know are removed, foreign ones left alone, the slots they take are not used) and
    /// goes on from there. Returns `false` (and does nothing) when nothing was saved.
    /// - Throws: ``PlannerError/storeFailed(_:)``, or ``PlannerError/invalidConfiguration(field:reason:)``
    ///   when foreign regions leave fewer than 2 slots.
    public func restore() async throws(PlannerError) -> Bool {
        guard let store else { return false }
        let loaded: PlannerSnapshot?
        do { loaded = try await store.load() } catch { throw .storeFailed(UnderlyingError(error)) }
        guard let snap = loaded else { return false }
        isEnabled = true
        statistics = snap.statistics
        plan = snap.plan
        mode = snap.mode
        awaitingFix = snap.awaitingFix
        pendingFresh = snap.pendingFresh
        odometerFix = snap.lastFix
        subject = snap.lastFix?.subject
        let held = Set(await monitor.registeredIdentifiers)
        registered = snap.registered.filter { id, reg in
            held.contains(id) && sources.contains { $0.prefix == reg.source && $0.catalogue.contains(reg.identifier) }
        }
        replanRegistered = snap.replanRegistered && held.contains(Self.replanIdentifier)
        try await reconcile(keeping: Set(registered.keys).union(replanRegistered ? [Self.replanIdentifier] : []))
        updatesRequested = !snap.updatesRequested // so that setUpdates tells the monitor again
        await setUpdates(snap.updatesRequested)
        // After setUpdates, which forgets the intervals when updates are off.
        if let saved = snap.track {
            track = saved
            track.maximumSpeed = sizing.maximumSpeed
            track.glitchAllowance = sizing.glitchAllowance
        } else {
            track.restore(accepted: snap.lastFix, previous: snap.previousFix)
        }
        breachSincePlan = snap.breachSincePlan ?? false
        awaitedExitTime = snap.awaitedExitTime
        learnedEventLatency = snap.learnedEventLatency ?? 0
        learnedEventLatencyAt = snap.learnedEventLatencyAt ?? (learnedEventLatency > 0 ? now() : nil)
        inCoarseRun = snap.inCoarseRun ?? false
        if mode == .hybrid {
            hybridSince = snap.hybridSince ?? snap.lastFix?.timestamp
            try restoreSoft(snap)
        } else if plan?.radius.isFinite == true, !replanRegistered {
            await waitForFix() // the re-plan region is gone: plan again from the next fix
        }
        updateSlotCount()
        return true
    }

    /// Rebuilds the planner's engines after a relaunch in hybrid mode: exactly as saved (every
    /// state, pending run and last fix; the state is saved after every fix in hybrid mode).
    /// When that is impossible — a state saved by an older version, or a region of the working
    /// set changed in the catalogue meanwhile — each region joins a cohort primed with the last
    /// fix, which restores every state that fix decides but not a pending run, and the planner
    /// says so (``ConditionBreach/stateNotRestored``).
    func restoreSoft(_ snap: PlannerSnapshot) throws(PlannerError) {
        if let saved = snap.soft, (try? soft.restore(saved, region: region(for:))) != nil { return }
        guard let fix = snap.lastFix else { return }
        var regions: [Region] = []
        for id in snap.softStates.keys.sorted() { if let r = region(for: id) { regions.append(r) } }
        do { try soft.addPrimed(regions, prime: fix) } catch { throw .invalidFix(error) }
        notice(.conditionBroken(.stateNotRestored, at: fix.timestamp))
    }

    /// Removes planner-owned regions the monitor holds that are not in `keeping`, and sizes the
    /// usable slots by the foreign regions left.
    func reconcile(keeping: Set<String>) async throws(PlannerError) {
        let held = await monitor.registeredIdentifiers
        var foreign = 0
        for id in held {
            let owned = id.hasPrefix(Self.reservedPrefix) || sources.contains { id.hasPrefix($0.prefix) }
            if !owned { foreign += 1 } else if !keeping.contains(id) { await monitor.unregister(identifier: id) }
        }
        usableSlots = min(slots, monitor.slotCapacity - foreign)
        guard usableSlots >= 2 else {
            throw .invalidConfiguration(
                field: "slots", reason: "only \(usableSlots) slots left beside \(foreign) regions registered by others")
        }
    }

    /// Saves the state when there is a store (errors are kept in ``storeErrors``; planning goes on).
    func save() async {
        guard let store else { return }
        let snap = PlannerSnapshot(
            mode: mode, registered: registered, replanRegistered: replanRegistered, plan: plan,
            lastFix: track.accepted, previousFix: track.previous, awaitingFix: awaitingFix,
            pendingFresh: pendingFresh, updatesRequested: updatesRequested,
            softStates: subject.map { soft.states(subject: $0) } ?? [:], statistics: statistics,
            soft: mode == .hybrid ? soft.saved() : nil, track: track, hybridSince: hybridSince,
            breachSincePlan: breachSincePlan, inCoarseRun: inCoarseRun, awaitedExitTime: awaitedExitTime,
            learnedEventLatency: learnedEventLatency, learnedEventLatencyAt: learnedEventLatencyAt)
        do { try await store.save(snap) } catch { storeErrors.append(.storeFailed(UnderlyingError(error))) }
    }
}
