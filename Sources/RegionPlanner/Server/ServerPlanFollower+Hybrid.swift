import Foundation
import GeoFormats
import Geodesy
import Geofencing

/// The regions a follower evaluates itself in hybrid mode: the server's plan for
/// ``ServerPlanFollower/workingSlots`` slots at ``center``, and the regions of earlier sets
/// still evaluated (a region leaves only once a fix settles it outside).
struct WorkingSet: Sendable {
    /// The plan, with the regions kept from earlier sets appended (its document is saved for
    /// a relaunch).
    var plan: ServerPlan
    /// Where it was asked for.
    var center: Coordinate
    /// Every region of the active tiers closer to ``center`` than this (signed boundary
    /// distance, metres) is in the set.
    var reach: Double
    /// Its regions by prefixed identifier.
    var regions: [String: FollowerRegion]

    /// How far the server's plan `plan` for `slots` slots holds every region: to its farthest
    /// region when it is full (nearest first, so those left out are at least as far), else to
    /// its re-plan radius (nothing was left out within the server's search radius, which the
    /// radius is below).
    static func reach(of plan: ServerPlan, slots: Int) -> Double {
        let center = plan.center ?? Coordinate(uncheckedLatitude: 0, longitude: 0)
        let farthest = plan.regions.map { max(0, $0.region.signedDistance(to: center)) }.max() ?? 0
        return plan.regions.count >= slots - 1 ? farthest : max(farthest, plan.replanRadius ?? 0)
    }

    /// `plan` with the JSON items of `kept` (prefixed identifiers) of this set appended.
    func carrying(_ kept: Set<String>, into plan: ServerPlan) -> ServerPlan {
        guard !kept.isEmpty, case .array(let old)? = self.plan.document["regions"],
            case .object(var doc) = plan.document, case .array(let items)? = doc["regions"]
        else { return plan }
        var extra: [JSONValue] = []
        for (i, e) in self.plan.regions.enumerated() where i < old.count {
            if kept.contains(e.region.prefixedIdentifier) { extra.append(old[i]) }
        }
        doc["regions"] = .array(items + extra)
        return (try? ServerPlan(json: .object(doc))) ?? plan
    }
}

extension ServerPlanFollower {
    /// Switches to hybrid mode at `x` (before the monitor processes it): continuous updates on,
    /// the re-plan circle gone, the working set loaded into the follower's engines. The regions
    /// the monitor holds stay there (it keeps evaluating them, and their events come through
    /// ``handle(_:)``) until the follower returns to slot mode.
    func enterHybrid(at x: LocationFix) async {
        mode = .hybrid
        statistics.hybridEntries += 1
        hybridSince = x.timestamp
        probeRefusedAt = x.coordinate
        monitoring = true
        if replanRegistered {
            await monitor.unregister(identifier: RegionPlanner<Monitor>.replanIdentifier)
            replanRegistered = false
        }
        await setUpdates(true)
        await refreshWorkingSet(at: x)
        await saveState()
    }

    /// Hybrid mode, at a trusted fix `x` before anyone processed it: keeps the working set
    /// ahead of the subject, follows the switch, and returns to slot mode where a slot plan
    /// keeps the guarantee.
    func maintainHybrid(at x: LocationFix) async {
        let reach = working.map { $0.reach - distance($0.center, x.coordinate) } ?? -.infinity
        let workingExpired = await workingSource.isExpired(at: x.timestamp)
        // A region that joins must be clear of the fix before `x` (its priming fix): every
        // region within a registration clearance of the track is in the set already.
        if awaitingPlan || workingExpired || reach < sizing.registrationClearance + 1 {
            await refreshWorkingSet(at: x)
        }
        let slotPlanExpired = await source.isExpired(at: x.timestamp)
        if slotPlanExpired || slotsMayCover(at: x) { await probeSlots(at: x) }
    }

    /// Whether the working set says the nearest `slots − 1` regions at `x` leave room for a
    /// re-plan circle with room to spare (the planner's rule: 1.5 × the smallest radius), and
    /// `x` is away from the last refusal: only then is a slot plan asked for.
    func slotsMayCover(at x: LocationFix) -> Bool {
        guard let working else { return false }
        if let refused = probeRefusedAt, distance(refused, x.coordinate) < sizing.minimumRadius / 2 { return false }
        let sorted = working.regions.map { (id: $0.key, d: $0.value.region.signedDistance(to: x.coordinate)) }
            .sorted { ($0.d, $0.id) < ($1.d, $1.id) }
        let k = max(0, min(source.slots, monitor.slotCapacity) - 1)
        let (_, nearestOther) = SlotFill.fill(k, keeping: [], from: sorted, id: \.id, distance: \.d)
        let known = working.reach - distance(working.center, x.coordinate)
        guard let radius = sizing.radius(nearestUnregistered: min(nearestOther, known)) else { return false }
        return radius >= 1.5 * sizing.minimumRadius
    }

    /// Asks for the slot plan at `x` and returns to slot mode when it is guaranteed and every
    /// region can change hands at `x` (or when monitoring is switched off).
    func probeSlots(at x: LocationFix) async {
        probeRefusedAt = x.coordinate
        guard let result = await request(.fetch, from: source, at: x), case .changed(let plan) = result else { return }
        statistics.probes += 1
        if !plan.monitoringEnabled {
            soft.removeAll()
            working = nil
            leaveHybrid(at: x.timestamp)
            await apply(plan)
            await setUpdates(false)
        } else if plan.guaranteed, await handOver(to: plan, at: x) {
            leaveHybrid(at: x.timestamp)
            await setUpdates(false)
            await saveState()
        }
    }

    func leaveHybrid(at time: Date) {
        tickHybridClock(at: time)
        hybridSince = nil
        mode = .slots
        awaitingPlan = false
        probeRefusedAt = nil
    }

    /// Applies the guaranteed slot plan `plan` at `x` when every region changes hands without
    /// losing state (``HysteresisPolicy/settled(_:_:at:previous:)``, the planner's rule): the
    /// regions it drops are settled outside, the ones it takes from the follower's engines are
    /// decided, with nothing pending, on the side `x` gives them (registered without initial
    /// events: they were reported already). Returns whether it did; otherwise nothing changed.
    func handOver(to plan: ServerPlan, at x: LocationFix) async -> Bool {
        let subject = x.subject
        let wanted = registrations(for: plan)
        let previous = track.previous
        let clearance = monitor.evaluatesFixesFirst ? sizing.registrationClearance + 2 : nil
        for (id, old) in registered where wanted[id]?.region != old.region {
            guard await monitor.state(of: id) == .outside,
                policy.settled(old.region, .outside, at: x, previous: previous)
            else { return false }
        }
        for id in soft.identifiers where wanted[id] == nil {
            guard let r = soft.region(id), soft.state(of: id, subject: subject) == .outside,
                !soft.isPending(id, subject: subject), policy.settled(r, .outside, at: x, previous: previous)
            else { return false }
        }
        for (id, w) in wanted where registered[id] == nil {
            let side = soft.contains(id) ? soft.state(of: id, subject: subject) : .outside
            guard side != .unknown, !soft.isPending(id, subject: subject),
                policy.startsAlike(w.region, side, at: x, nextFixClearance: clearance)
            else { return false }
        }
        // Already decided in the follower's engines: no initial event again.
        let quiet = Set(wanted.keys.filter { soft.contains($0) })
        soft.removeAll()
        working = nil
        await apply(plan, quiet: quiet)
        return true
    }

    /// Fetches the working set at `x` and loads the regions nobody evaluates yet into the
    /// follower's engines: in a cohort primed with the fix before `x` (they lie outside, clear
    /// of the track, as in the whole-catalogue engine), or unprimed at the first fix and for a
    /// tier child (its first fix decides it, with its initial entry). Regions that left the set
    /// are dropped once `x` settles them outside with nothing pending.
    func refreshWorkingSet(at x: LocationFix) async {
        guard let result = await request(.fetch, from: workingSource, at: x) else { return }
        awaitingPlan = false
        guard case .changed(let plan) = result else { return }
        statistics.workingSetFetches += 1
        load(plan, at: x)
    }

    func load(_ plan: ServerPlan, at x: LocationFix) {
        let fetched = entries(of: plan, count: workingSlots - 1)
        var primed: [Region] = []
        var children: [Region] = []
        for (id, w) in fetched.sorted(by: { $0.key < $1.key })
        where registered[id] == nil && !soft.contains(id) {
            if w.region.parent != nil { children.append(w.region) } else { primed.append(w.region) }
        }
        let prime = track.previous.flatMap { $0 == x ? nil : $0 }
        do {
            try soft.addPrimed(primed, prime: prime)
            try soft.addUnprimed(children, initialEvents: true)
        } catch {
            note(.malformed("working set refused by the follower's engine: \(error)"))
        }
        statistics.softLoads += primed.count + children.count
        let subject = x.subject
        for id in Array(soft.identifiers) where fetched[id] == nil {
            guard let r = soft.region(id), soft.state(of: id, subject: subject) == .outside,
                !soft.isPending(id, subject: subject), policy.settled(r, .outside, at: x, previous: track.previous)
            else { continue }
            soft.remove(id)
        }
        // Regions kept past the set still need their source and identifier for events, and
        // their definition for a relaunch.
        let kept = Set(soft.identifiers.filter { fetched[$0] == nil })
        let merged = working?.carrying(kept, into: plan) ?? plan
        working = WorkingSet(
            plan: merged, center: plan.center ?? x.coordinate, reach: WorkingSet.reach(of: plan, slots: workingSlots),
            regions: entries(of: merged, count: merged.regions.count))
    }

    func tickHybridClock(at time: Date) {
        guard mode == .hybrid, let since = hybridSince else { return }
        statistics.hybridSeconds += max(0, time.timeIntervalSince(since))
        hybridSince = time
    }

    func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        Geodesic.wgs84.inverse(a, b).distance
    }
}
