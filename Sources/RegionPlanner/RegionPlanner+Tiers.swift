import Foundation
import Geofencing

extension RegionPlanner {
    /// Loads (or takes from a fresh cache) the children of `parent` into its source's
    /// catalogue. Returns whether the catalogue changed.
    func loadChildren(of parent: CatalogueEntry, source s: Int) async -> Bool {
        guard let loader = sources[s].loader else { return false }
        if loadedChildren[s]?[parent.identifier] != nil { return false }   // already loaded
        let children: [CatalogueEntry]
        if let cached = cache[s]?[parent.identifier],
           now().timeIntervalSince(cached.loadedAt) < sources[s].cacheExpiry {
            statistics.cacheHits += 1
            children = cached.children
        } else {
            statistics.loaderCalls += 1
            do {
                children = try await loader(parent)
            } catch {
                loaderErrors.append(.loaderFailed(parent: parent.identifier, reason: "\(error)"))
                return false
            }
            cache[s, default: [:]][parent.identifier] = CachedChildren(children: children, loadedAt: now())
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
        loadedChildren[s, default: [:]][parent.identifier] = added
        return !added.isEmpty
    }

    /// Unloads the children of `parent` and their descendants, unregistering those that are
    /// registered. Returns whether anything was unloaded.
    func unloadChildren(of parent: String, source s: Int) async -> Bool {
        guard let children = loadedChildren[s]?.removeValue(forKey: parent) else { return false }
        for child in children {
            _ = await unloadChildren(of: child, source: s)
            sources[s].catalogue.remove(child)
            let id = sources[s].prefix + child
            if registered.removeValue(forKey: id) != nil {
                await monitor.unregister(identifier: id)
                statistics.removals += 1
            }
        }
        statistics.slotsUsed = registered.count + (replanRegistered ? 1 : 0)
        return true
    }

    /// Identifiers of the children currently loaded for `parent` in the source with `prefix`.
    public func loadedChildren(of parent: String, prefix: String) -> [String] {
        guard let s = sources.firstIndex(where: { $0.prefix == prefix }) else { return [] }
        return loadedChildren[s]?[parent] ?? []
    }
}
