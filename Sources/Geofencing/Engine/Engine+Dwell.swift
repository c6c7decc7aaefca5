import Foundation

extension Engine {
    /// Emits the dwell event of an inside track once it has been inside for the region's
    /// dwell time (Android's loitering delay), measured from the estimated entry crossing
    /// (or from the first fix, for an initial inside state with a `.dwell` initial trigger).
    /// While an exit is pending the dwell is held back; it fires at the first fix that
    /// cancels the exit, or never if the exit is confirmed.
    ///
    /// - Parameters:
    ///   - now: the time up to which the subject is known to have stayed.
    ///   - eventTime: the event's time when it fires now (`nil`: the moment the dwell time
    ///     ran out, but not before the entry was confirmed).
    mutating func checkDwell(_ tr: inout Track, now: Double, eventTime: Double?, fix: FixRef,
                             events: inout [TransitionEvent]) {
        guard tr.state == .inside, tr.dwellArmed, !tr.dwellFired, tr.pendingCount == 0 else { return }
        let s = Int(tr.slot)
        let due = tr.insideSince + store.dwell[s]
        guard due <= now else { return }
        tr.dwellFired = true
        let time = eventTime ?? max(due, tr.enteredAt)
        events.append(event(.dwell, s, fix, time: time, crossedAt: tr.insideSince, initial: false))
    }
}
