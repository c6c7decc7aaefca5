import Foundation
import Geodesy
import Geofencing

extension RegionPlanner {
    /// Switches to hybrid mode at `x`: continuous updates on, the re-plan region gone, the
    /// nearby catalogue loaded into the planner's own engine. Regions the monitor holds stay
    /// there until a fix lets them move without losing state (``maintainHybrid(at:trusted:)``).
    func enterHybrid(at x: LocationFix, path: PlanPath, fresh: Set<String>) async throws(PlannerError) {
        if mode == .slots {
            statistics.hybridEntries += 1
            hybridSince = x.timestamp
            notice(.modeChanged(to: .hybrid, at: x.timestamp))
        }
        mode = .hybrid
        if replanRegistered {
            await monitor.unregister(identifier: Self.replanIdentifier)
            replanRegistered = false
        }
        await setUpdates(true)
        try loadWorkingSet(at: x, path: path, fresh: fresh)
        updateSlotCount()
        await save()
    }

    /// Loads every entry within ``workingRadius`` of `x` that nobody evaluates yet. Regions new
    /// to the catalogue (and everything at the first plan) join unprimed — unknown until their
    /// first fix, as in the whole-catalogue engine; the others join a cohort primed with the
    /// fix before the cohort's first (``SoftEvaluator``).
    func loadWorkingSet(at x: LocationFix, path: PlanPath, fresh: Set<String>) throws(PlannerError) {
        var found: [Candidate] = []
        for s in sources {
            for n in s.catalogue.entries(within: workingRadius, of: x.coordinate, limit: workingLimit) {
                var r = n.entry.region
                r.identifier = s.prefix + n.entry.identifier
                if n.entry.parent != nil || n.entry.hasChildren { r.initialTrigger.insert(.enter) }
                found.append(
                    Candidate(
                        id: r.identifier, source: s.prefix, key: n.entry.identifier, region: r, distance: n.distance))
            }
        }
        found.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        var reach = workingRadius
        if found.count > workingLimit {
            reach = found[workingLimit].distance
            found = Array(found.prefix { $0.distance < reach })
        } else if found.count == workingLimit, let last = found.last {
            reach = last.distance
        }
        var primed: [Region] = []
        var unprimed: [Region] = []
        for cand in found where registered[cand.id] == nil && !soft.contains(cand.id) {
            if path == .initial || fresh.contains(cand.id) {
                unprimed.append(cand.region)
            } else {
                primed.append(cand.region)
            }
        }
        let prime: LocationFix? =
            switch path {
            case .initial: nil
            case .afterMonitor: x
            case .beforeMonitor: track.previous
            }
        do {
            try soft.addPrimed(primed, prime: prime)
            try soft.addUnprimed(unprimed, initialEvents: true)
        } catch {
            throw .invalidFix(error)
        }
        statistics.softLoads += primed.count + unprimed.count
        plan = Plan(
            center: x.coordinate, radius: workingRadius, nearestUnregistered: reach, guaranteed: true,
            registered: Set(registered.keys), mode: .hybrid)
    }

    /// Before the planner's engine and the monitor process `x` (hybrid mode): hands monitor
    /// regions over when `x` decides them on the side the monitor has, keeps the working set
    /// ahead of the subject, and returns to slot mode when the area allows it.
    func maintainHybrid(at x: LocationFix, trusted: Bool) async throws(PlannerError) {
        for id in registered.keys.sorted() {
            guard let r = region(for: id) else { continue }
            let s = await monitor.state(of: id)
            guard s != .unknown, settled(r, s, at: x) else { continue }
            await unregisterHandingOver(id, at: x)
            if r.signedDistance(to: x.coordinate) <= workingRadius {
                do { try soft.addUnprimed([r], initialEvents: false) } catch { throw .invalidFix(error) }
                statistics.softLoads += 1
            }
        }
        updateSlotCount()
        guard let plan, plan.mode == .hybrid else { return }
        // Back to slot mode at the first trusted fix where the slots can keep the guarantee:
        // continuous GPS only where it is needed.
        if trusted, try await leaveHybrid(at: x) { return }
        let reach = plan.nearestUnregistered - distance(plan.center, x.coordinate)
        // A glitch moves nothing unless it could itself be the first fix of an unloaded region.
        let limit = trusted ? plan.nearestUnregistered / 2 : sizing.catalogueMarginCeiling + 1
        guard reach < limit else { return }
        try loadWorkingSet(at: x, path: .beforeMonitor, fresh: [])
        if trusted { dropFarRegions(at: x) }
        await save()
    }

    /// Drops regions far outside the working set whose state `x` confirms as outside.
    func dropFarRegions(at x: LocationFix) {
        guard let subject else { return }
        for id in Array(soft.identifiers) {
            guard let r = soft.region(id), r.signedDistance(to: x.coordinate) > 1.5 * workingRadius,
                soft.state(of: id, subject: subject) == .outside, !soft.isPending(id, subject: subject),
                settled(r, .outside, at: x)
            else { continue }
            soft.remove(id)
        }
    }

    /// Returns to slot mode at `x` (before anyone processed it) when a re-plan radius keeps
    /// the guarantee with room to spare, and every region that moves between the planner's
    /// engine and the monitor is decided by `x` on the side it has. Returns whether it did.
    func leaveHybrid(at x: LocationFix) async throws(PlannerError) -> Bool {
        guard let subject else { return false }
        let sizing = effectiveSizing
        let c = sizing.registrationClearance
        let k = usableSlots - 1
        let pinned = await regionsToKeep(at: x, clearance: c, keepingUnsettled: true)
        let (candidates, keep, nearestOther) = fillSlots(k, keeping: pinned, at: x.coordinate)
        // Room to spare, so that the planner does not flap between modes at the threshold.
        guard let radius = sizing.radius(nearestUnregistered: nearestOther),
            radius >= 1.5 * sizing.minimumRadius
        else { return false }
        let toRegister = candidates.filter { keep.contains($0.id) && registered[$0.id] == nil }
        for cand in toRegister {
            let needed: RegionState = soft.contains(cand.id) ? soft.state(of: cand.id, subject: subject) : .outside
            guard needed != .unknown, startsAlike(cand.region, needed, at: x),
                !soft.isPending(cand.id, subject: subject)
            else { return false }
        }
        for id in soft.identifiers where !keep.contains(id) {
            guard let r = soft.region(id), soft.state(of: id, subject: subject) == .outside,
                !soft.isPending(id, subject: subject), settled(r, .outside, at: x)
            else { return false }
        }
        for id in registered.keys where !keep.contains(id) {
            guard let r = region(for: id) else { continue }
            let state = await monitor.state(of: id)
            guard state == .outside, settled(r, .outside, at: x) else { return false }
        }
        for id in registered.keys where !keep.contains(id) { await unregisterHandingOver(id, at: x) }
        for cand in toRegister {
            // Already decided in the planner's engine: no initial event again.
            let r = soft.contains(cand.id) ? SoftEvaluator.quiet(cand.region) : cand.region
            try await register(cand.id, r, source: cand.source, key: cand.key)
        }
        soft.removeAll()
        if radius.isFinite { try await registerReplanCircle(at: x.coordinate, radius: radius) }
        mode = .slots
        leaveHybridClock(at: x.timestamp)
        notice(.modeChanged(to: .slots, at: x.timestamp))
        await setUpdates(false)
        statistics.replans += 1
        breachSincePlan = false
        plan = Plan(
            center: x.coordinate, radius: radius, nearestUnregistered: nearestOther, guaranteed: true,
            registered: Set(registered.keys), mode: .slots)
        updateSlotCount()
        await save()
        return true
    }
}
