import Foundation
import Geodesy
import Geofencing

extension RegionPlanner {
    /// When a plan is made, relative to the fix it is made at.
    enum PlanPath {
        /// The first plan, before the first fix: every state is unknown everywhere.
        case initial
        /// From ``observe(_:)``: nobody has processed the fix yet, so it is the first fix of
        /// every region registered now.
        case beforeMonitor
        /// After the monitor processed the fix (an event, a wake, an edit): the next fix is
        /// the first of every region registered now.
        case afterMonitor
    }

    /// Whether the next fix could reach an unregistered region before the monitor decides it
    /// (the fix-driven rule, docs/planner.md).
    func slotPlanNeedsRefresh(at fix: LocationFix) -> Bool {
        guard let plan, plan.mode == .slots else { return true }
        let reach = plan.nearestUnregistered - distance(plan.center, fix.coordinate)
        let sizing = effectiveSizing
        // Where the monitor may see the fix first: one step early, so that the region is still
        // a step clear at the re-plan's fix.
        let early = monitor.evaluatesFixesFirst ? sizing.step + 2 : 0
        return reach < sizing.registrationClearance + early
    }

    /// How far a region must lie outside (or inside) the boundary at a fix `x` so that the
    /// fix after `x` decides it on the same side too: the largest margin, one step of
    /// `v·Δ + J`, and 1 m of rounding for each.
    func nextFixClearance(_ sizing: ReplanSizing) -> Double {
        sizing.registrationClearance + 2
    }

    /// Whether `region`, registered with the monitor at `x`, starts there on `side` as the
    /// whole-catalogue engine has it. Its first fix at the monitor is `x` when the app calls
    /// ``observe(_:)`` before the monitor sees the position, or the next fix when the monitor
    /// may evaluate first (``SlotMonitor/evaluatesFixesFirst``, a phone; `nextFix`: known to
    /// be so): then `x` and the next fix must both decide it, so it must lie
    /// ``nextFixClearance(_:)`` clear of its boundary.
    func startsAlike(_ region: Region, _ side: RegionState, at x: LocationFix, nextFix: Bool = false) -> Bool {
        let clearance = nextFix || monitor.evaluatesFixesFirst ? nextFixClearance(effectiveSizing) : nil
        return policy.startsAlike(region, side, at: x, nextFixClearance: clearance)
    }

    /// After the monitor reported the re-plan region's exit (or a wake found the subject
    /// outside it): asks for the next fix and re-plans there (``observe(_:)``), before the
    /// monitor processes it. The event's own fix may be a glitch, or older than the newest
    /// (a delayed event); the next fix is checked against the track, and every region the
    /// new plan registers is then decided by its first fix exactly as in the whole-catalogue
    /// engine. An event fix further from the plan centre than the plan allows is reported.
    func replanAfterMonitor() async throws(PlannerError) {
        if let x = track.latest, let plan, plan.mode == .slots, plan.radius.isFinite {
            let bound = effectiveSizing.exitBound(radius: plan.radius)
            let d = distance(plan.center, x.coordinate)
            if d > bound + 1, track.suspect != x {
                notice(.conditionBroken(.planOvertaken(distance: d, bound: bound), at: x.timestamp))
            }
        }
        await waitForFix()
    }

    func waitForFix() async {
        awaitingFix = true
        await setUpdates(true)
        await save()
    }

    /// Makes a plan at `x`: slot mode when the nearest `slots − 1` regions can be registered in
    /// the state the whole-catalogue engine has them and a re-plan radius keeps the guarantee;
    /// hybrid mode otherwise.
    func replan(at x: LocationFix, path: PlanPath, fresh: Set<String> = []) async throws(PlannerError) {
        statistics.replans += 1
        awaitingFix = false
        awaitedExitTime = nil
        breachSincePlan = false
        let sizing = effectiveSizing
        let c = sizing.registrationClearance
        let k = usableSlots - 1
        let pinned = await regionsToKeep(at: x, clearance: c, keepingUnsettled: path == .beforeMonitor)
        let (candidates, keep, nearestOther) = fillSlots(k, keeping: pinned, at: x.coordinate)
        let toRegister = candidates.filter { keep.contains($0.id) && registered[$0.id] == nil }
        func startable(_ id: String, _ r: Region) -> Bool {
            if fresh.contains(id) { return true }
            switch path {
            case .initial: return true
            case .beforeMonitor: return startsAlike(r, .outside, at: x)
            case .afterMonitor: return startsAlike(r, .outside, at: x, nextFix: true)
            }
        }
        var radius = sizing.radius(nearestUnregistered: nearestOther)
        let guaranteed = radius != nil && toRegister.allSatisfy { startable($0.id, $0.region) }
        if !guaranteed {
            statistics.replansWithoutGuarantee += 1
            guard !allowsHybrid else {
                try await enterHybrid(at: x, path: path, fresh: fresh)
                return
            }
            radius = radius ?? sizing.minimumRadius
        }
        guard let radius else { return }
        for id in registered.keys where !keep.contains(id) { await unregisterHandingOver(id, at: x) }
        if replanRegistered {
            await monitor.unregister(identifier: Self.replanIdentifier)
            replanRegistered = false
        }
        for cand in toRegister { try await register(cand.id, cand.region, source: cand.source, key: cand.key) }
        if radius.isFinite { try await registerReplanCircle(at: x.coordinate, radius: radius) }
        if !awaitingFix { await setUpdates(false) }
        plan = Plan(
            center: x.coordinate, radius: radius, nearestUnregistered: nearestOther, guaranteed: guaranteed,
            registered: Set(registered.keys), mode: .slots)
        updateSlotCount()
        await save()
    }

    struct Candidate {
        var id: String
        var source: String
        var key: String
        var region: Region
        var distance: Double
    }

    /// The registered regions that stay registered at `x`: those the subject may be in or near
    /// (within the registration clearance `c`), those `x` does not settle as outside (when
    /// `keepingUnsettled`: a confirmation may still be on its way), and those the monitor has
    /// the subject inside.
    func regionsToKeep(at x: LocationFix, clearance c: Double, keepingUnsettled: Bool) async -> Set<String> {
        var keep = Set<String>()
        for id in registered.keys {
            guard let r = region(for: id) else { continue }
            if r.signedDistance(to: x.coordinate) <= c || (keepingUnsettled && !settled(r, .outside, at: x)) {
                keep.insert(id)
            } else if await monitor.state(of: id) == .inside {
                keep.insert(id)
            }
        }
        return keep
    }

    /// `pinned` filled up to `k` regions with the nearest candidates at `point`; also the
    /// distance of the nearest candidate left out (infinity when none is), which sizes the
    /// re-plan circle.
    func fillSlots(
        _ k: Int, keeping pinned: Set<String>, at point: Coordinate
    )
        -> (candidates: [Candidate], keep: Set<String>, nearestOther: Double)
    {
        let (candidates, _) = nearestCandidates(at: point, count: k + 1 + pinned.count)
        let (keep, nearestOther) = SlotFill.fill(k, keeping: pinned, from: candidates, id: \.id, distance: \.distance)
        return (candidates, keep, nearestOther)
    }

    /// The `count` nearest entries over all sources at `point`, ascending, with their
    /// prefixed identifiers and regions.
    func nearestCandidates(at point: Coordinate, count: Int) -> ([Candidate], Int) {
        var out: [Candidate] = []
        for s in sources {
            for n in s.catalogue.nearest(count, to: point) {
                var r = n.entry.region
                r.identifier = s.prefix + n.entry.identifier
                if n.entry.parent != nil || n.entry.hasChildren { r.initialTrigger.insert(.enter) }
                out.append(
                    Candidate(
                        id: r.identifier, source: s.prefix, key: n.entry.identifier, region: r, distance: n.distance))
            }
        }
        out.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        return (out, out.count)
    }

    func register(_ id: String, _ region: Region, source: String, key: String) async throws(PlannerError) {
        do { try await monitor.register(region) } catch {
            throw .registrationFailed(identifier: id, underlying: error)
        }
        registered[id] = Registration(source: source, identifier: key)
        retired[id] = nil
        statistics.registrations += 1
        updateSlotCount()
    }

    func registerReplanCircle(at center: Coordinate, radius: Double) async throws(PlannerError) {
        var circle = Region.circle(
            identifier: Self.replanIdentifier, center: center, radius: radius,
            notifyOnEntry: false, notifyOnExit: true)
        // Registered while the subject may already be outside (sparse fixes, a gap): the first
        // deciding fix reports it, so planning never stalls.
        circle.initialTrigger = [.exit]
        do { try await monitor.register(circle) } catch {
            throw .registrationFailed(identifier: Self.replanIdentifier, underlying: error)
        }
        replanRegistered = true
        updateSlotCount()
    }

    /// Unregisters a catalogue region that leaves the monitor at `x` (dropped, or handed to the
    /// planner's engines). An event the monitor confirmed at or before `x` may still be on its
    /// way — a phone evaluates its regions before the app gets the position — and is the app's:
    /// ``handle(_:)`` takes it until an hour of fix time has passed.
    func unregisterHandingOver(_ id: String, at x: LocationFix) async {
        await monitor.unregister(identifier: id)
        statistics.removals += 1
        guard let reg = registered.removeValue(forKey: id) else { return }
        retired[id] = RetiredRegistration(registration: reg, until: x.timestamp)
        let horizon = x.timestamp.addingTimeInterval(-Self.retiredHorizon)
        retired = retired.filter { $0.value.until >= horizon }
    }

    /// How long (fix time) a late event of an unregistered region is still delivered.
    static var retiredHorizon: TimeInterval { 3_600 }

    /// The registration a late event belongs to: a region unregistered at or after the fix that
    /// confirmed the event.
    func retiredOwner(of event: TransitionEvent) -> Registration? {
        guard let r = retired[event.regionID], event.time <= r.until else { return nil }
        return r.registration
    }

    func updateSlotCount() {
        statistics.slotsUsed = registered.count + (replanRegistered ? 1 : 0)
        statistics.maximumSlotsUsed = max(statistics.maximumSlotsUsed, statistics.slotsUsed)
    }
}
