import Foundation
import Geofencing

extension ServerPlanFollower {
    /// Continues a follower of an earlier launch from its ``store``: takes back the plan's
    /// regions the monitor still holds (their monitor state kept), unregisters those of its
    /// regions the monitor holds but the saved plan does not explain, and continues from the
    /// saved track. In slot mode it asks for a plan at the next fix; in hybrid mode it rebuilds
    /// its engines exactly as saved (every state and pending run) and asks for continuous
    /// updates again. Returns `false` (and does nothing) when nothing was saved or the saved
    /// state cannot be read (noted in ``errors``).
    public func restore() async -> Bool {
        let loaded: FollowerState?
        do { loaded = try await store?.load() } catch {
            note(.storage("cannot read the saved state: \(error)"))
            return false
        }
        guard let state = loaded else { return false }
        let plan: ServerPlan?
        var workingSet: WorkingSet?
        do {
            plan = state.plan == .null ? nil : try ServerPlan(json: state.plan)
            if state.mode == .hybrid, let doc = state.working, let reach = state.workingReach {
                let p = try ServerPlan(json: doc)
                workingSet = WorkingSet(
                    plan: p, center: p.center ?? .init(uncheckedLatitude: 0, longitude: 0), reach: reach,
                    regions: entries(of: p, count: p.regions.count))
            }
        } catch {
            note(.storage("the saved plan is not a plan: \(error)"))
            return false
        }
        let held = Set(await monitor.registeredIdentifiers)
        let wanted = plan.map { registrations(for: $0) } ?? [:]
        for id in state.registered where held.contains(id) {
            if let w = wanted[id] { registered[id] = w } else { await monitor.unregister(identifier: id) }
        }
        replanRegistered = state.replanRegistered && held.contains(RegionPlanner<Monitor>.replanIdentifier)
        applied = plan
        monitoring = plan?.monitoringEnabled ?? (state.mode == .hybrid)
        if let saved = state.track {
            track = saved
        }
        var rebuilt = false
        if let workingSet, let saved = state.soft {
            rebuilt = (try? soft.restore(saved, region: { id in workingSet.regions[id]?.region })) != nil
        }
        guard rebuilt else {
            // Saved in hybrid mode, yet the engines cannot be rebuilt: their pending runs are
            // lost, which the app must hear about (the planner's `stateNotRestored`).
            if state.mode == .hybrid { note(.storage("the hybrid-mode engines could not be restored exactly")) }
            // Slot mode: a plan at the next fix.
            awaitingPlan = true
            await setUpdates(true)
            return true
        }
        mode = .hybrid
        working = workingSet
        hybridSince = state.hybridSince
        awaitingPlan = state.awaitingPlan ?? false
        updatesRequested = false // so that setUpdates tells the monitor again
        await setUpdates(true)
        return true
    }

    /// Saves the plan applied, what is registered for it and, in hybrid mode, the working set
    /// and the follower's engines (a failure is noted in ``errors``).
    func saveState() async {
        guard let store else { return }
        var state = FollowerState(
            plan: applied?.document ?? .null, registered: registered.keys.sorted(), replanRegistered: replanRegistered)
        state.mode = mode
        state.track = track
        state.awaitingPlan = awaitingPlan
        state.hybridSince = hybridSince
        if mode == .hybrid {
            state.working = working?.plan.document
            state.workingReach = working?.reach
            state.soft = soft.saved()
        }
        do { try await store.save(state) } catch { note(.storage("cannot save the state: \(error)")) }
    }
}
