import Foundation
import Geofencing

extension TenantRuntime {
    /// The regions each of `devices` is confirmed inside now (committed state), by device;
    /// devices the engine does not know are left out. O(devices asked) under the lock.
    func regionsInside(devices: [String]) async throws -> [String: [String]] {
        try await enterSettled()
        defer { release() }
        var out: [String: [String]] = [:]
        for d in devices where shards.lastFix(of: d) != nil { out[d] = shards.regionsContaining(subject: d).sorted() }
        return out
    }

    /// The devices confirmed inside `region` now, with their last fixes.
    ///
    /// Cost: the devices ``InsideIndex`` lists under the region, each checked against the
    /// engine, under the lock: O(devices inside the region), not O(devices of the tenant).
    func devices(inside region: String) async throws -> [(id: String, lastFix: LocationFix)] {
        try await enterSettled()
        defer { release() }
        guard shards.region(identifier: region) != nil else { return [] }
        return insideIndex.devices(in: region).compactMap { d in
            guard shards.state(of: d, in: region) == .inside, let f = shards.lastFix(of: d) else { return nil }
            return (d, f)
        }
    }

    /// Whether the tenant has the region `id` (from the catalog: no lock).
    nonisolated func hasRegion(_ id: String) async throws -> Bool {
        try await loadedCatalog().read { $0.entries[id] != nil }
    }
}
