import Foundation

extension Engine {
    /// The ``TransitionRule`` applied to one of a fix's tracks: the region's facts and the
    /// event sink (events carry `fix` and the region's identifier).
    @inline(__always)
    mutating func step(
        _ tr: inout Track, sd: Double, margins: FixMargins, time t: Double,
        fix: FixRef, trigger: InitialTrigger, events: inout [TransitionEvent]
    ) {
        let s = Int(tr.slot)
        let margin = margins.margin(regionSize: store.hot[s].size)
        rule.apply(&tr, sd: sd, margin: margin, at: t, region: facts(s), trigger: trigger) {
            kind, time, crossed, initial in
            events.append(event(kind, s, fix, time: time, crossedAt: crossed, initial: initial))
        }
    }

    /// Runs the dwell timer of `tr` up to `t` (the settled shortcut's only work per track).
    @inline(__always)
    func checkDwell(_ tr: inout Track, at t: Double, fix: FixRef, events: inout [TransitionEvent]) {
        let s = Int(tr.slot)
        rule.checkDwell(&tr, now: t, eventTime: t, region: facts(s)) { kind, time, crossed, initial in
            events.append(event(kind, s, fix, time: time, crossedAt: crossed, initial: initial))
        }
    }

    /// ``TransitionRule/isDue(_:at:before:dwellTime:)`` for a track of this engine.
    @inline(__always)
    func isDue(_ tr: Track, at t: Double, before: Bool) -> Bool {
        rule.isDue(tr, at: t, before: before) { store.dwell[Int(tr.slot)] }
    }

    /// ``TransitionRule/confirmDue(_:at:before:region:emit:)`` for a track of this engine, with
    /// `fix` (the subject's last fix before `t`) in the events.
    @inline(__always)
    func confirmDue(_ tr: inout Track, at t: Double, before: Bool, fix: FixRef, events: inout [TransitionEvent]) {
        let s = Int(tr.slot)
        rule.confirmDue(&tr, at: t, before: before, region: facts(s)) { kind, time, crossed, initial in
            events.append(event(kind, s, fix, time: time, crossedAt: crossed, initial: initial))
        }
    }

    /// What the rule reads of region slot `s`: its flags, and its dwell time only when it has
    /// one (the dwell array is a separate, colder load).
    @inline(__always)
    func facts(_ s: Int) -> TransitionRule.RegionFacts {
        let flags = store.hot[s].flags
        let dwell = flags & RegionStore.Flags.hasDwell != 0 ? store.dwell[s] : .nan
        return TransitionRule.RegionFacts(flags: flags, dwellTime: dwell)
    }

    func event(
        _ kind: TransitionEvent.Kind, _ s: Int, _ fix: FixRef, time: Double,
        crossedAt: Double, initial: Bool
    ) -> TransitionEvent {
        TransitionEvent(
            kind: kind, regionID: store.ids[s], subject: fix.pointee.subject, fix: fix.pointee,
            time: Date(timeIntervalSinceReferenceDate: time),
            crossedAt: Date(timeIntervalSinceReferenceDate: crossedAt), isInitial: initial)
    }
}
