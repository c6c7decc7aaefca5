import Foundation
import Geofencing

extension RegionPlanner {
    /// Adds or replaces entries of the source with `prefix` while running (a server pushed
    /// them). An entry equal to the one already there changes nothing (its state is kept); a
    /// changed one is evaluated again from `unknown`, as `Engine.add` replaces a region; a new
    /// one starts `unknown` like in a whole-catalogue engine: its first deciding fix sets its
    /// state silently (Core Location's initial-state rule; `initialTrigger` asks for an event).
    /// New entries the current plan could reach are registered before the next fix (slot mode:
    /// the planner asks for that fix with continuous updates, ``status``).
    /// - Throws: ``PlannerError/unknownSource(_:)``, ``PlannerError/invalidEntry(index:identifier:underlying:)``
    ///   or ``PlannerError/duplicateIdentifier(_:index:)``; nothing is changed then.
    public func add(_ entries: [CatalogueEntry], to prefix: String) async throws(PlannerError) {
        guard let s = sources.firstIndex(where: { $0.prefix == prefix }) else { throw .unknownSource(prefix) }
        var seen = Set<String>()
        for (i, e) in entries.enumerated() {
            do { try e.region.validate() } catch {
                throw .invalidEntry(index: i, identifier: e.identifier, underlying: error)
            }
            guard seen.insert(e.identifier).inserted else { throw .duplicateIdentifier(e.identifier, index: i) }
        }
        var fresh = Set<String>()
        for e in entries where sources[s].catalogue.entry(e.identifier) != e {
            try sources[s].catalogue.insert(e)
            let id = prefix + e.identifier
            fresh.insert(id)
            try await reevaluate(id)
        }
        try await bringUnderEvaluation(fresh)
    }

    /// Removes entries of the source with `prefix` by identifier (unknown ones are ignored).
    /// A region removed while the subject is inside gives no exit — as in a whole-catalogue
    /// engine, whose `remove` ends the region's history.
    public func remove(_ identifiers: [String], from prefix: String) async throws(PlannerError) {
        guard let s = sources.firstIndex(where: { $0.prefix == prefix }) else { throw .unknownSource(prefix) }
        for key in identifiers where sources[s].catalogue.remove(key) != nil {
            await forget(prefix + key)
        }
        await save()
    }

    /// Removes every entry of the source with `prefix` whose identifier starts with `start`
    /// (all of them by default). O(catalogue size).
    public func removeAll(from prefix: String, identifiersStartingWith start: String = "") async throws(PlannerError) {
        guard let s = sources.firstIndex(where: { $0.prefix == prefix }) else { throw .unknownSource(prefix) }
        let keys = sources[s].catalogue.entries.map(\.identifier).filter { $0.hasPrefix(start) }
        try await remove(keys, from: prefix)
    }

    /// Stops evaluating `id` anywhere (no event).
    func forget(_ id: String) async {
        if registered.removeValue(forKey: id) != nil {
            await monitor.unregister(identifier: id)
            statistics.removals += 1
        }
        soft.remove(id)
        pendingFresh.remove(id)
        updateSlotCount()
    }

    /// A replaced entry that is being evaluated is replaced there too (its state resets).
    func reevaluate(_ id: String) async throws(PlannerError) {
        guard let r = region(for: id) else { return }
        if let reg = registered[id] {
            try await register(id, r, source: reg.source, key: reg.identifier)
            statistics.registrations -= 1
        } else if soft.contains(id) {
            do { try soft.addUnprimed([r], initialEvents: true) } catch { throw .invalidFix(error) }
        }
    }

    /// Makes sure regions new to the catalogue that the plan could reach are evaluated from the
    /// next fix on (hybrid: now, in the planner's engine; slot mode: registered at that fix).
    func bringUnderEvaluation(_ fresh: Set<String>) async throws(PlannerError) {
        guard isEnabled, let plan else {
            await save()
            return
        }
        var reachable: [Region] = []
        for id in fresh where registered[id] == nil && !soft.contains(id) {
            guard let r = region(for: id) else { continue }
            if r.signedDistance(to: plan.center) < plan.nearestUnregistered { reachable.append(r) }
        }
        guard !reachable.isEmpty else {
            await save()
            return
        }
        switch mode {
        case .hybrid:
            do { try soft.addUnprimed(reachable, initialEvents: true) } catch { throw .invalidFix(error) }
            statistics.softLoads += reachable.count
            await save()
        case .slots:
            pendingFresh.formUnion(reachable.map(\.identifier))
            await waitForFix()
        }
    }

    /// Tier children loaded after their parent's event: re-plan at once at the event's fix
    /// (the newest); the children carry `initialTrigger: .enter`.
    func replanForEdit(fresh: Set<String>) async throws(PlannerError) {
        guard isEnabled, let x = track.accepted else { return }
        if mode == .hybrid {
            let regions = fresh.compactMap { region(for: $0) }
            do { try soft.addUnprimed(regions, initialEvents: true) } catch { throw .invalidFix(error) }
            return
        }
        try await replan(at: x, path: .afterMonitor, fresh: fresh)
    }
}
