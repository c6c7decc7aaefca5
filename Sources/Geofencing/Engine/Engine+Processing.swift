import Foundation
import Geodesy

extension Engine {
    /// Feeds one fix and returns the events it confirms, in time order (at equal times:
    /// exits, then entries, then dwells).
    ///
    /// Before the fix is applied, pending transitions whose confirmation time has run out by
    /// `fix.timestamp` are confirmed (exactly as ``advance(subject:to:)`` would), so the
    /// events do not depend on whether the caller also calls `advance`.
    ///
    /// For high rates, ``process(_:subject:initialTrigger:into:)`` with a ``SubjectHandle``
    /// gives the same events without hashing the subject or allocating per fix.
    ///
    /// - Parameter initialTrigger: initial events wanted for regions whose state this fix
    ///   determines for the first time, in addition to each region's own
    ///   ``Region/initialTrigger``. (For `.exit`, only regions near the fix are covered; far
    ///   regions get an initial exit only through their own trigger.)
    /// - Throws: ``GeofencingError/invalidFix(subject:field:reason:)`` or
    ///   ``GeofencingError/outOfOrderFix(subject:timestamp:lastTimestamp:)``; the engine is
    ///   unchanged then.
    public mutating func process(
        _ fix: LocationFix,
        initialTrigger: InitialTrigger = []
    ) throws(GeofencingError) -> [TransitionEvent] {
        var events: [TransitionEvent] = []
        try process(fix, initialTrigger: initialTrigger, into: &events)
        return events
    }

    /// Feeds one fix and appends the events it confirms, in time order, to `events` (whatever
    /// `events` held before is kept). Same rules and errors as ``process(_:initialTrigger:)``;
    /// on error nothing is appended. Reusing one buffer (`removeAll(keepingCapacity: true)`)
    /// avoids an allocation per fix.
    public mutating func process(
        _ fix: LocationFix, initialTrigger: InitialTrigger = [],
        into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        try fix.validate()
        let si: Int
        if let i = subjectIndex[fix.subject] {
            si = Int(i)
        } else {
            si = subjectStates.count
            subjectIndex[fix.subject] = Int32(si)
            subjectStates.append(SubjectState(name: fix.subject))
        }
        try withUnsafePointer(to: fix) { (fix) throws(GeofencingError) in
            try processValidated(fix, subject: si, initialTrigger: initialTrigger, into: &events)
        }
    }

    /// Feeds one fix of the subject behind `handle` (from ``handle(for:)``) and appends the
    /// events it confirms, in time order, to `events`.
    ///
    /// Gives exactly the events of ``process(_:initialTrigger:)``; it only skips the lookup of
    /// `fix.subject` (a string hash per fix), which is why it is the fastest way to feed an
    /// engine. `fix.subject` must still be the handle's subject (compared, not hashed).
    /// - Throws: ``GeofencingError/invalidFix(subject:field:reason:)`` (field `subject` when
    ///   the handle is not this engine's handle for `fix.subject`) or
    ///   ``GeofencingError/outOfOrderFix(subject:timestamp:lastTimestamp:)``; the engine is
    ///   unchanged and nothing is appended then.
    public mutating func process(
        _ fix: LocationFix, subject handle: SubjectHandle,
        initialTrigger: InitialTrigger = [],
        into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        try withUnsafePointer(to: fix) { (fix) throws(GeofencingError) in
            try process(fix, subject: handle, initialTrigger: initialTrigger, into: &events)
        }
    }

    /// ``process(_:subject:initialTrigger:into:)`` for a fix read in place (the batch entry
    /// point's), so that it is never copied.
    @inline(__always)
    mutating func process(
        _ fix: FixRef, subject handle: SubjectHandle, initialTrigger: InitialTrigger,
        measured: MeasuredFix? = nil, into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        let si = Int(handle.rawValue)
        guard si >= 0, si < subjectStates.count, subjectStates[si].name == fix.pointee.subject else {
            throw .invalidFix(
                subject: fix.pointee.subject, field: "subject",
                reason: "does not match the subject handle \(handle.rawValue)")
        }
        if !fix.pointee.passesValidation { try fix.pointee.validate() }
        try processValidated(fix, subject: si, initialTrigger: initialTrigger, measured: measured, into: &events)
    }

    /// Feeds fixes in order; stops at the first bad one (the fixes before it stay applied).
    public mutating func process(
        contentsOf fixes: some Sequence<LocationFix>
    ) throws(GeofencingError) -> [TransitionEvent] {
        var all: [TransitionEvent] = []
        for f in fixes { try process(f, into: &all) }
        return all
    }

    /// The body of `process` for a validated fix of subject `si` (with its regions and
    /// distances when they were measured ahead, ``FixGeometry``).
    @inline(__always)
    mutating func processValidated(
        _ fix: FixRef, subject si: Int, initialTrigger: InitialTrigger,
        measured: MeasuredFix? = nil, into events: inout [TransitionEvent]
    ) throws(GeofencingError) {
        let t = fix.pointee.timestamp.timeIntervalSinceReferenceDate
        let last = subjectStates[si].lastTime
        if t < last {
            throw .outOfOrderFix(
                subject: fix.pointee.subject, timestamp: fix.pointee.timestamp,
                lastTimestamp: Date(timeIntervalSinceReferenceDate: last))
        }
        let first = events.count
        let claimed = fix.pointee.horizontalAccuracy ?? policy.assumedAccuracy
        // A usable fix is taken at no better than the recent fixes' accuracy; an unusable one
        // (too coarse to decide anything) leaves that memory alone.
        let accuracy =
            claimed <= policy.maximumAccuracy
            ? (policy.judgesAccuracyByRecentFixes ? subjectStates[si].takeAccuracy(claimed) : claimed) : claimed
        // Pending transitions and dwell times that ran out before this fix are confirmed
        // first, with the subject's previous fix in their events (``advanceSubject``). A
        // full evaluation does it in its own pass over the tracks; so the previous fix is
        // rebuilt here only when something is due.
        if subjectStates[si].hasTracks, scanTracks(of: si, dueBefore: t) {
            var previous = recordedFix(of: si)
            subjectStates[si].record(fix, time: t)
            withUnsafePointer(to: &previous) { previous in
                if accuracy <= policy.maximumAccuracy {
                    evaluate(
                        subject: si, fix: fix, time: t, accuracy: accuracy, trigger: initialTrigger,
                        due: previous, measured: measured, events: &events)
                } else {
                    advanceSubject(si, to: t, before: true, fix: previous, events: &events)
                }
            }
        } else {
            subjectStates[si].record(fix, time: t)
            if accuracy <= policy.maximumAccuracy {
                evaluate(
                    subject: si, fix: fix, time: t, accuracy: accuracy, trigger: initialTrigger,
                    due: nil, measured: measured, events: &events)
            }
        }
        // Confirmations that ran out before the fix come before its own events (all at `t`).
        if events.count - first > 1 { Engine.sortByTime(&events, from: first) }
    }

    /// Whether any of subject `si`'s tracks has something due before `t`
    /// (``isDue(_:at:before:)``). On the way, as every track is read here anyway, it requests
    /// what evaluating the fix will read that the batch's hints did not cover: the region
    /// records of the tracks past ``SubjectState/hintCapacity``, and the identifiers of the
    /// regions with a transition pending (an event needs them). The index query and the
    /// candidates come first, so these misses overlap them.
    @inline(__always)
    func scanTracks(of si: Int, dueBefore t: Double) -> Bool {
        let records = RecordPrefetcher(store)
        return subjectStates[si].tracks.withUnsafeBufferPointer { tracks in
            var due = false
            for r in 0..<tracks.count {
                if r >= SubjectState.hintCapacity { records.record(tracks[r].slot) }
                if tracks[r].pendingCount > 0 { records.identifier(tracks[r].slot) }
                if !due, isDue(tracks[r], at: t, before: true) { due = true }
            }
            return due
        }
    }

    /// Stable sort of `events[from...]` by time and, at equal times, exits before entries
    /// before dwells (a subject crossing from one region into its neighbour leaves the one,
    /// then enters the other; an entry's dwell comes after it), then by region identifier, so
    /// that the order never depends on the order regions were added in (an engine restored
    /// from a snapshot over re-added regions gives the same sequence). Insertion sort: a fix's
    /// events are few and nearly in order.
    static func sortByTime(_ events: inout [TransitionEvent], from: Int = 0) {
        guard events.count - from > 1 else { return }
        // Moved bitwise (an assignment would retain and release each event's strings), and
        // compared by their fields (an event passed whole is copied).
        events.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            var i = from + 1
            while i < buf.count {
                let t = base[i].time
                let rank = base[i].kind.timeOrder
                var j = i
                while j > from, Self.precedes(base + i, time: t, rank: rank, base + j - 1) { j -= 1 }
                if j < i {
                    let e = (base + i).move()
                    (base + j + 1).moveInitialize(from: base + j, count: i - j)
                    (base + j).initialize(to: e)
                }
                i += 1
            }
        }
    }

    /// Whether the event at `a` (its `time` and kind's `rank` read once) sorts before the one
    /// at `b`: earlier, or at the same time of an earlier kind, or of the same kind and a
    /// smaller region identifier (compared only at such ties, which are rare).
    @inline(__always)
    static func precedes(
        _ a: UnsafePointer<TransitionEvent>, time t: Date, rank: Int,
        _ b: UnsafePointer<TransitionEvent>
    ) -> Bool {
        if t != b.pointee.time { return t < b.pointee.time }
        let other = b.pointee.kind.timeOrder
        if rank != other { return rank < other }
        return a.pointee.regionID < b.pointee.regionID
    }
}
