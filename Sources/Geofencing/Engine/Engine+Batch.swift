import CPrefetch
import Foundation

extension Engine {
    /// How many fixes ahead each prefetch stage of a batch runs (see
    /// ``process(_:subjects:measured:initialTrigger:into:)``). A fix takes 0.1–0.5 µs to evaluate and a
    /// load from DRAM about 0.1 µs, so two fixes of work cover one level of misses.
    static let prefetchDistance = 2

    /// Bytes before an array's first element in its heap buffer (object header, count,
    /// capacity on 64-bit platforms): where the reference count that a retain writes lives.
    /// Used only to aim prefetch hints; were it wrong, a hint would merely miss.
    static let arrayHeaderBytes = 32

    /// The most tracks of a subject the batch prefetches (a 1 KiB run).
    static let prefetchedTracks = 16

    /// Feeds many fixes — `fixes[i]` of the subject behind `subjects[i]` — in order, appending
    /// the events each one confirms to `events`. The events are exactly those of calling
    /// ``process(_:subject:initialTrigger:into:)`` for each fix in turn; the difference is
    /// speed. While one fix is evaluated, the memory the next few will need is requested,
    /// one dependent level per stage, each stage a few fixes ahead of the next:
    /// 1. the subject's record;
    /// 2. the index buckets of its position (or, inside its safe rectangle, the rectangle's
    ///    region list) and its track list;
    /// 3. the index cells' entries, and the records of the regions it tracks (with the
    ///    identifiers of those with a transition pending, which may need them for an event).
    /// The requests are prefetch hints: the CPU does not wait for them, so the misses of
    /// several fixes are in flight at once instead of being paid one after another.
    ///
    /// ```swift
    /// let handles = fixes.map { engine.handle(for: $0.subject) }
    /// var events: [TransitionEvent] = []
    /// try engine.process(fixes[...], subjects: handles[...], into: &events)
    /// ```
    ///
    /// - Parameter measured: the fixes' regions and distances, measured ahead on another
    ///   thread (``RegionGeometry/measure(_:)``): the engine then skips the index queries
    ///   and distances it would repeat. Ignored unless measured from exactly these fixes'
    ///   positions against this engine's current regions (the caller's promise for the
    ///   positions; the regions are checked).
    /// - Throws: like the single-fix call, for the first bad fix; the fixes before it stay
    ///   applied (their events are in `events`), the bad one and those after it are not.
    ///   Different counts of fixes and handles throw
    ///   ``GeofencingError/invalidFix(subject:field:reason:)`` (field `subject`) before
    ///   anything is applied.
    public mutating func process(
        _ fixes: ArraySlice<LocationFix>, subjects: ArraySlice<SubjectHandle>,
        measured: FixGeometry? = nil, initialTrigger: InitialTrigger = [],
        into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        guard fixes.count == subjects.count else {
            throw .invalidFix(
                subject: fixes.first?.subject ?? "", field: "subject",
                reason: "\(fixes.count) fixes but \(subjects.count) subject handles")
        }
        if let measured, measured.generation === catalogueGeneration, measured.count == fixes.count {
            try measured.withFixes { (measuredFix) throws(GeofencingError) in
                try process(
                    fixes, subjects: subjects, measuredFix: measuredFix, prefetchesIndex: false,
                    initialTrigger: initialTrigger, into: &events)
            }
        } else {
            try process(
                fixes, subjects: subjects, measuredFix: { _ in nil }, prefetchesIndex: true,
                initialTrigger: initialTrigger, into: &events)
        }
    }

    /// The batch loop, with fix i's measurement from `measuredFix(i)` (nil: measured here);
    /// without `prefetchesIndex` (a measured batch), the index's memory is not requested.
    @inline(__always)
    private mutating func process(
        _ fixes: ArraySlice<LocationFix>, subjects: ArraySlice<SubjectHandle>,
        measuredFix: (Int) -> MeasuredFix?, prefetchesIndex: Bool, initialTrigger: InitialTrigger,
        into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        let n = fixes.count
        let d = Engine.prefetchDistance
        // Read-only copies for the prefetch stages (they share the buffers; processing does
        // not change the index or the regions, so nothing is copied).
        let view = index.prefetchView
        let hot = store.hot
        let ids = store.ids
        // Addresses used only as prefetch hints, never read through: the region records and
        // identifiers (kept alive by the copies above), and the subject records, which
        // change as fixes are processed (were the array moved, a hint would merely miss).
        let hotBase = hot.withUnsafeBufferPointer { $0.baseAddress }
        let hotCount = hot.count
        let idsBase = ids.withUnsafeBufferPointer { $0.baseAddress }
        let states = subjectStates.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let stateCount = subjectStates.count
        let stateSize = SubjectState.hotBytes
        let stateStride = MemoryLayout<SubjectState>.stride
        // Through buffer pointers, so that a fix is passed on without being copied.
        try fixes.withUnsafeBufferPointer { (fixes) throws(GeofencingError) in
            try subjects.withUnsafeBufferPointer { (subjects) throws(GeofencingError) in
                // Bit (i mod 64): fix i is expected inside its subject's safe rectangle
                // (found at stage 2, used at stage 3).
                var inRect: UInt64 = 0
                for j in 0..<(n + 3 * d) {
                    // Stage 1: the subject's record (the part every fix reads).
                    if j < n, let states, case let si = Int(subjects[j].rawValue), si >= 0, si < stateCount {
                        prefetch(states + si * stateStride, bytes: stateSize)
                    }
                    // Stage 2: the index buckets (or, inside the safe rectangle, its region
                    // list) and the track list (at the hinted addresses).
                    if case let i = j - d, i >= 0, i < n,
                        case let si = Int(subjects[i].rawValue), si >= 0, si < stateCount
                    {
                        let p = fixes[i].coordinate
                        let bit: UInt64 = 1 << UInt64(i & 63)
                        if useSafeRects, subjectStates[si].usableStamp == stampCounter,
                            subjectStates[si].safe.contains(lat: p.latitude, lon: p.longitude)
                        {
                            inRect |= bit
                            if let slots = UnsafeRawPointer(bitPattern: subjectStates[si].hintSafeSlots) {
                                // The buffer's header (its reference count) and its slots.
                                cprefetch_read(slots - Engine.arrayHeaderBytes)
                                cprefetch_read(slots)
                            }
                        } else {
                            inRect &= ~bit
                            if prefetchesIndex { view.prefetchBuckets(lat: p.latitude, lon: p.longitude) }
                        }
                        if let tracks = UnsafeRawPointer(bitPattern: subjectStates[si].hintTracks) {
                            // Header and the tracks (every fix reads them all), up to 16.
                            let count = min(Int(subjectStates[si].hintTrackCount), Engine.prefetchedTracks)
                            prefetch(
                                tracks - Engine.arrayHeaderBytes,
                                bytes: Engine.arrayHeaderBytes + count * MemoryLayout<Track>.stride)
                        }
                    }
                    // Stage 3: the cells' entries (or none, inside the safe rectangle), and the
                    // records of the regions the fix will read (from the hints), with the
                    // identifiers of those with a transition pending.
                    if case let i = j - 2 * d, i >= 0, i < n,
                        case let si = Int(subjects[i].rawValue), si >= 0, si < stateCount
                    {
                        if inRect & (1 << UInt64(i & 63)) == 0, prefetchesIndex {
                            view.prefetchEntries(lat: fixes[i].coordinate.latitude, lon: fixes[i].coordinate.longitude)
                        }
                        let slots = subjectStates[si].hintSlots
                        let pending = subjectStates[si].hintPending
                        for k in 0..<SubjectState.hintCapacity {
                            let s = Int(slots[k])
                            guard s >= 0, s < hotCount, let hotBase, let idsBase else { break }
                            cprefetch_read(hotBase + s)
                            if pending & (1 << UInt8(k)) != 0 { cprefetch_read(idsBase + s) }
                        }
                    }
                    if case let i = j - 3 * d, i >= 0 {
                        try process(
                            fixes.baseAddress! + i, subject: subjects[i], initialTrigger: initialTrigger,
                            measured: measuredFix(i), into: &events)
                    }
                }
            }
        }
    }
}
