import Foundation

extension Engine {
    /// Confirms, by time alone, what the subject's fixes so far already establish: pending
    /// transitions whose confirmation time has run out by `time` (if they have their minimum
    /// number of fixes) and dwell times that have run out. Events carry the moment the
    /// condition was met (e.g. first deciding fix + confirmation time), not `time`.
    ///
    /// The monitoring layer calls this from its clock so that a subject that stops
    /// reporting still gets its events. Calling it never changes which events happen, only
    /// when they are returned: ``process(_:initialTrigger:)`` does the same before each fix.
    /// A `time` before the subject's last fix, or an unknown subject, returns nothing.
    public mutating func advance(subject: String, to time: Date) -> [TransitionEvent] {
        guard let i = subjectIndex[subject] else { return [] }
        let t = time.timeIntervalSinceReferenceDate
        let si = Int(i)
        guard t.isFinite, t >= subjectStates[si].lastTime, !subjectStates[si].tracks.isEmpty else { return [] }
        var events: [TransitionEvent] = []
        var last = recordedFix(of: si)
        withUnsafePointer(to: &last) { advanceSubject(si, to: t, fix: $0, events: &events) }
        if events.count > 1 { Engine.sortByTime(&events) }
        return events
    }

    /// ``advance(subject:to:)`` for every subject.
    public mutating func advanceAll(to time: Date) -> [TransitionEvent] {
        var all: [TransitionEvent] = []
        for s in subjectStates.indices where !subjectStates[s].tracks.isEmpty {
            all.append(contentsOf: advance(subject: subjectStates[s].name, to: time))
        }
        if all.count > 1 { Engine.sortByTime(&all) }
        return all
    }

    /// Confirms what is due at `t` on every track of subject `si`, with `fix` (its last fix
    /// before `t`) in the events; tracks of removed or replaced regions are dropped, and so
    /// are those left idle (outside, nothing pending).
    mutating func advanceSubject(
        _ si: Int, to t: Double, before: Bool = false, fix: FixRef,
        events: inout [TransitionEvent]
    ) {
        guard subjectStates[si].tracks.contains(where: { isDue($0, at: t, before: before) }) else { return }
        var tracks = subjectStates[si].tracks
        subjectStates[si].tracks = []
        // Only due tracks are copied out and back (a track is large).
        var w = 0
        for r in 0..<tracks.count {
            let s = Int(tracks[r].slot)
            guard store.isAlive(s), store.hot[s].stamp == tracks[r].stamp else { continue }
            if isDue(tracks[r], at: t, before: before) {
                var tr = tracks[r]
                confirmDue(&tr, at: t, before: before, fix: fix, events: &events)
                if tr.isIdle { continue }
                tracks[w] = tr
            } else if w != r {
                tracks[w] = tracks[r]
            }
            w += 1
        }
        if w < tracks.count { tracks.removeSubrange(w...) }
        subjectStates[si].tracks = tracks
    }
}
