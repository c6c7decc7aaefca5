import Foundation
import Geofencing

extension RegionPlanner {
    /// Loads or unloads a tier parent's children after its entry or exit, and re-plans.
    func tierStep(for event: PlannerEvent) async throws(PlannerError) {
        guard let s = sources.firstIndex(where: { $0.prefix == event.source }) else { return }
        switch event.kind {
        case .enter:
            if let entry = sources[s].catalogue.entry(event.identifier), entry.hasChildren {
                let added = await loadChildren(of: entry, source: s)
                if !added.isEmpty { try await replanForEdit(fresh: Set(added.map { event.source + $0 })) }
            }
        case .exit:
            if await unloadChildren(of: event.identifier, source: s) { try await replanForEdit(fresh: []) }
        case .dwell:
            break
        }
    }

    /// Loads (or takes from a fresh cache) the children of `parent` into its source's
    /// catalogue. Returns the identifiers added.
    func loadChildren(of parent: CatalogueEntry, source s: Int) async -> [String] {
        guard let loader = sources[s].loader else { return [] }
        let prefix = sources[s].prefix
        if loadedChildren[prefix]?[parent.identifier] != nil { return [] } // already loaded
        let children: [CatalogueEntry]
        if let cached = cache[prefix]?[parent.identifier],
            now().timeIntervalSince(cached.loadedAt) < sources[s].cacheExpiry
        {
            statistics.cacheHits += 1
            children = cached.children
        } else {
            statistics.loaderCalls += 1
            do {
                children = try await loader(parent)
            } catch {
                loaderErrors.append(.loaderFailed(parent: parent.identifier, underlying: UnderlyingError(error)))
                return []
            }
            cache[prefix, default: [:]][parent.identifier] = CachedChildren(children: children, loadedAt: now())
        }
        var added: [String] = []
        for child in children {
            var c = child
            if c.parent == nil { c.parent = parent.identifier }
            guard c.parent == parent.identifier else {
                loaderErrors.append(.childOfWrongParent(child: c.identifier, parent: parent.identifier))
                continue
            }
            do {
                try sources[s].catalogue.insert(c)
                added.append(c.identifier)
            } catch {
                loaderErrors.append(error)
            }
        }
        loadedChildren[prefix, default: [:]][parent.identifier] = added
        return added
    }

    /// Unloads the children of `parent` and their descendants, unregistering those that are
    /// registered. Returns whether anything was unloaded.
    func unloadChildren(of parent: String, source s: Int) async -> Bool {
        let prefix = sources[s].prefix
        guard let children = loadedChildren[prefix]?.removeValue(forKey: parent) else { return false }
        for child in children {
            _ = await unloadChildren(of: child, source: s)
            sources[s].catalogue.remove(child)
            await forget(prefix + child)
        }
        updateSlotCount()
        return true
    }

    /// Identifiers of the children currently loaded for `parent` in the source with `prefix`.
    public func loadedChildren(of parent: String, prefix: String) -> [String] {
        loadedChildren[prefix]?[parent] ?? []
    }
}
