/// The regions' part of an engine snapshot — their fingerprint and their stamps by identifier —
/// kept between snapshots, because it costs a walk over every region and changes only when the
/// regions do. Pass the same cache to every ``Engine/subjectSnapshot(cache:)`` of an engine:
///
/// ```swift
/// var cache = SnapshotCache()
/// let first = engine.subjectSnapshot(cache: &cache)   // walks the regions
/// let later = engine.subjectSnapshot(cache: &cache)   // reuses that walk while the regions are unchanged
/// ```
///
/// A cache cannot go stale: it remembers the engine's ``CatalogueGeneration``, which every
/// change of the regions replaces, and is rebuilt when that differs. The bytes written are the
/// same with or without it.
public struct SnapshotCache: Sendable {
    var catalogue: SnapshotCatalogue?

    public init() {}
}

/// The identity of an engine's regions as they stand: every change of the regions or of their
/// stamps replaces the engine's generation with a new object, and copies of an engine share it
/// until one of them changes. Compared by identity (`===`): a cache holding one keeps it alive,
/// so no later generation can reuse its address.
final class CatalogueGeneration: Sendable {}

/// The regions' section of a snapshot, with what writing the subjects needs of it.
struct SnapshotCatalogue: Sendable {
    /// The generation it was computed under.
    let generation: CatalogueGeneration
    /// The fingerprint, the live region count, then each live region's identifier and stamp.
    let bytes: [UInt8]
    /// Each slot's ordinal among the live regions (the number a track is written with);
    /// `UInt32.max` for a dead slot.
    let ordinals: [UInt32]
}

extension Engine {
    /// The regions' section of a snapshot: from `cache` when it was computed under the current
    /// generation, otherwise computed now and kept there.
    func catalogueSection(cache: inout SnapshotCache) -> SnapshotCatalogue {
        if let kept = cache.catalogue, kept.generation === catalogueGeneration { return kept }
        var w = SnapshotWriter()
        w.u64(catalogueFingerprint())
        var ordinals = [UInt32](repeating: .max, count: store.slotCount)
        var live: UInt32 = 0
        w.u32(UInt32(store.liveCount))
        for s in 0..<store.slotCount where store.isAlive(s) {
            w.string(store.ids[s])
            w.u64(store.hot[s].stamp)
            ordinals[s] = live
            live += 1
        }
        assert(Int(live) == store.liveCount, "the store's live count disagrees with its slots")
        let fresh = SnapshotCatalogue(generation: catalogueGeneration, bytes: w.buffer, ordinals: ordinals)
        cache.catalogue = fresh
        return fresh
    }

    /// A fingerprint of the regions (identifiers, positions, sizes, flags, dwell), independent
    /// of their slots: equal fingerprints mean, for any practical purpose, the same catalogue.
    func catalogueFingerprint() -> UInt64 {
        var perRegion: [UInt64] = []
        perRegion.reserveCapacity(store.liveCount)
        var w = SnapshotWriter()
        for s in 0..<store.slotCount where store.isAlive(s) {
            w.buffer.removeAll(keepingCapacity: true)
            w.string(store.ids[s])
            let h = store.hot[s]
            for v in [h.x, h.y, h.z, h.size, store.lat[s], store.lon[s], store.dwell[s]] { w.f64(v) }
            w.u8(h.flags)
            w.u8(store.areas[Int32(s)] == nil ? 0 : 1)
            perRegion.append(SnapshotWriter.fnv1a(w.buffer))
        }
        perRegion.sort()
        w.buffer.removeAll(keepingCapacity: true)
        for h in perRegion { w.u64(h) }
        return SnapshotWriter.fnv1a(w.buffer)
    }
}
