import Foundation

extension Engine {
    /// Fixes per batch step: enough independent cache misses in flight to keep memory busy,
    /// few enough that what they load is still cached when the fixes are evaluated.
    static let batchWidth = 32

    /// Feeds many fixes — `fixes[i]` of the subject behind `subjects[i]` — in order, appending
    /// the events each one confirms to `events`. The events are exactly those of calling
    /// ``process(_:subject:initialTrigger:into:)`` for each fix in turn; the difference is
    /// speed: the index memory that a group of fixes will need is requested for all of them
    /// first (index buckets, cell runs, the subjects' track lists, their regions' records and
    /// the identifiers their pending transitions may need),
    /// so its cache misses overlap instead of being paid one after another.
    ///
    /// ```swift
    /// let handles = fixes.map { engine.handle(for: $0.subject) }
    /// var events: [TransitionEvent] = []
    /// try engine.process(fixes[...], subjects: handles[...], into: &events)
    /// ```
    ///
    /// - Throws: like the single-fix call, for the first bad fix; the fixes before it stay
    ///   applied (their events are in `events`), the bad one and those after it are not.
    ///   Different counts of fixes and handles throw
    ///   ``GeofencingError/invalidFix(subject:field:reason:)`` (field `subject`) before
    ///   anything is applied.
    public mutating func process(_ fixes: ArraySlice<LocationFix>, subjects: ArraySlice<SubjectHandle>,
                                 initialTrigger: InitialTrigger = [],
                                 into events: inout [TransitionEvent]) throws(GeofencingError) {
        guard fixes.count == subjects.count else {
            throw .invalidFix(subject: fixes.first?.subject ?? "", field: "subject",
                              reason: "\(fixes.count) fixes but \(subjects.count) subject handles")
        }
        var start = fixes.startIndex
        let offset = subjects.startIndex - fixes.startIndex
        var sink: UInt64 = 0
        while start < fixes.endIndex {
            let end = min(start + Engine.batchWidth, fixes.endIndex)
            // Fixes inside their subject's safe rectangle will not query the index.
            var needsIndex: UInt64 = 0
            for i in start..<end {
                let p = fixes[i].coordinate
                let si = Int(subjects[i + offset].rawValue)
                var skip = false
                if si >= 0, si < subjectStates.count {
                    // The subject's record and its tracked regions' buffer header.
                    sink &+= UInt64(subjectStates[si].tracks.count)
                    skip = useSafeRects && subjectStates[si].usableStamp == stampCounter
                        && subjectStates[si].safe.contains(lat: p.latitude, lon: p.longitude)
                }
                if !skip, abs(p.latitude) <= 90, abs(p.longitude) <= 540 {
                    needsIndex |= 1 << UInt64(i - start)
                    sink &+= index.warmBuckets(lat: p.latitude, lon: p.longitude)
                }
            }
            for i in start..<end {
                let p = fixes[i].coordinate
                if needsIndex & (1 << UInt64(i - start)) != 0 {
                    sink &+= index.warmEntries(lat: p.latitude, lon: p.longitude)
                }
                // The hot records of the regions the subject tracks (re-evaluated every fix).
                let si = Int(subjects[i + offset].rawValue)
                if si >= 0, si < subjectStates.count {
                    store.hot.withUnsafeBufferPointer { hot in
                        // The tracked regions' records (the index will return most of them as
                        // candidates, whose records are read then), and the identifier of each
                        // pending one: it may be confirmed, and its event needs the id.
                        for tr in subjectStates[si].tracks where Int(tr.slot) < hot.count {
                            sink &+= UInt64(hot[Int(tr.slot)].flags)
                            if tr.pendingCount > 0 { sink &+= UInt64(truncatingIfNeeded: store.ids[Int(tr.slot)].utf8.count) }
                        }
                        // And the regions of its safe rectangle, when the fix is in it.
                        if needsIndex & (1 << UInt64(i - start)) == 0 {
                            for s in subjectStates[si].safeSlots where Int(s) < hot.count {
                                sink &+= UInt64(hot[Int(s)].flags)
                            }
                        }
                    }
                }
            }
            for i in start..<end {
                try process(fixes[i], subject: subjects[i + offset], initialTrigger: initialTrigger, into: &events)
            }
            start = end
        }
        warmSink &+= sink
    }
}
