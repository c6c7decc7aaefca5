import Geofencing
import NIOConcurrencyHelpers

/// A tenant's ``RegionMapIndex``, kept in step with its engine's regions by ``TenantRuntime``
/// and read without the tenant's lock: the map, the region list and the bbox filter never wait
/// for (nor hold up) fix ingestion.
///
/// The index is built on the first read after the engine is (re)loaded, from the regions the
/// load handed over plus the changes since, so a start-up or a rebuild costs one array copy
/// under the tenant's lock, not an index build. Reads and updates take this catalog's own
/// lock: a read holds it for the length of its query (bounded by the caller), during which a
/// region change waits; fix batches never take it.
final class RegionCatalog: Sendable {
    private enum Change {
        case upsert([Region])
        case delete(String)
    }

    private struct State {
        var index: RegionMapIndex? = nil
        /// What the index is built from until it is: the engine's regions at its last load, and
        /// the changes since, in order.
        var base: [Region] = []
        var changes: [Change] = []
        /// Whether the engine was loaded at least once (before that, the catalog knows nothing).
        var populated = false
        /// Each region's feature as the map answers it, encoded once (``FeatureText``).
        var texts = FeatureText()
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the tenant's engine has handed over its regions at least once.
    var isPopulated: Bool { state.withLockedValue { $0.populated } }

    /// Starts over from `regions` (the engine after a load); the index is rebuilt on next read.
    func replace(with regions: [Region]) {
        state.withLockedValue { s in
            s = State(index: nil, base: regions, changes: [], populated: true, texts: FeatureText())
        }
    }

    /// Adds or replaces `regions`.
    func upsert(_ regions: [Region]) {
        state.withLockedValue { s in
            for r in regions { s.texts.forget(r.identifier) }
            if s.index == nil {
                s.changes.append(.upsert(regions))
            } else {
                for r in regions { s.index!.insert(r) }
            }
        }
    }

    /// Removes the region `id`.
    func delete(_ id: String) {
        state.withLockedValue { s in
            s.texts.forget(id)
            if s.index == nil { s.changes.append(.delete(id)) } else { s.index!.remove(id) }
        }
    }

    /// Runs `body` on the index (building it first if needed), under the catalog's lock.
    func read<T>(_ body: (RegionMapIndex) throws -> T) rethrows -> T {
        try readWithText { index, _ in try body(index) }
    }

    /// Runs `body` on the index and the regions' encoded features (kept in step with the
    /// index: every change above forgets the changed region's text), under the catalog's lock.
    func readWithText<T>(_ body: (RegionMapIndex, inout FeatureText) throws -> T) rethrows -> T {
        try state.withLockedValue { s in
            if s.index == nil {
                var index = RegionMapIndex(regions: s.base)
                for change in s.changes {
                    switch change {
                    case .upsert(let regions): for r in regions { index.insert(r) }
                    case .delete(let id): index.remove(id)
                    }
                }
                s.index = index
                s.base = []
                s.changes = []
            }
            return try body(s.index!, &s.texts)
        }
    }
}
