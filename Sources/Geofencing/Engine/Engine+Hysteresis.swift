import Foundation

extension Engine {
    /// Applies one usable fix (signed distance `sd`) to one (subject, region) track.
    ///
    /// - `unknown`: a fix past the margin on either side sets the state silently (initial
    ///   events only if asked).
    /// - `inside` / `outside`: a fix past the margin on the far side starts or extends a
    ///   pending transition; any other usable fix cancels it. The transition is confirmed
    ///   when the pending run has lasted ``HysteresisPolicy/confirmationTime`` with at least
    ///   ``HysteresisPolicy/minimumConfirmingFixes`` fixes.
    /// - The crossing time is interpolated between the last fix on the near side of the
    ///   boundary and the first on the far side (signed distances through zero).
    mutating func step(_ tr: inout Track, sd: Double, margins: FixMargins, time t: Double,
                       fix: FixRef, trigger: InitialTrigger, events: inout [TransitionEvent]) {
        let s = Int(tr.slot)
        guard let m = margins.margin(regionSize: store.hot[s].size) else { return }
        let f = store.hot[s].flags
        switch tr.state {
        case .unknown:
            if sd < -m {
                tr.state = .inside
                tr.insideSince = t
                tr.enteredAt = t
                let wantsDwell = trigger.contains(.dwell) || f & RegionStore.Flags.initialDwell != 0
                tr.dwellArmed = wantsDwell && f & RegionStore.Flags.hasDwell != 0
                tr.dwellFired = false
                if (trigger.contains(.enter) || f & RegionStore.Flags.initialEnter != 0),
                   f & RegionStore.Flags.notifyOnEntry != 0 {
                    events.append(event(.enter, s, fix, time: t, crossedAt: t, initial: true))
                }
            } else if sd > m {
                tr.state = .outside
                if (trigger.contains(.exit) || f & RegionStore.Flags.initialExit != 0),
                   f & RegionStore.Flags.notifyOnExit != 0 {
                    events.append(event(.exit, s, fix, time: t, crossedAt: t, initial: true))
                }
            }
        case .inside, .outside:
            let towardInside = tr.state == .outside
            let farSide = towardInside ? sd <= 0 : sd > 0
            if farSide {
                if tr.crossedAt.isNaN {
                    let prev = tr.lastSD
                    let prevNear = towardInside ? prev > 0 : prev <= 0
                    if prevNear, tr.lastTime < t {
                        tr.crossedAt = tr.lastTime + (t - tr.lastTime) * prev / (prev - sd)
                    } else {
                        tr.crossedAt = tr.lastTime.isNaN ? t : tr.lastTime
                    }
                }
            } else {
                tr.crossedAt = .nan
            }
            let deciding = towardInside ? sd < -m : sd > m
            if deciding {
                if tr.pendingCount == 0 { tr.pendingSince = t }
                tr.pendingCount = min(tr.pendingCount + 1, Int32.max - 1)
                if Int(tr.pendingCount) >= policy.minimumConfirmingFixes,
                   t - tr.pendingSince >= policy.confirmationTime {
                    confirm(&tr, at: t, fix: fix, events: &events)
                }
            } else {
                tr.pendingCount = 0
            }
        }
        tr.lastSD = sd
        tr.lastTime = t
        checkDwell(&tr, now: t, eventTime: t, fix: fix, events: &events)
    }

    /// Flips the state of a track whose pending transition is confirmed at `time`.
    mutating func confirm(_ tr: inout Track, at time: Double, fix: FixRef,
                          events: inout [TransitionEvent]) {
        let s = Int(tr.slot)
        let f = store.hot[s].flags
        let crossed = tr.crossedAt.isNaN ? tr.pendingSince : min(tr.crossedAt, tr.pendingSince)
        if tr.state == .outside {
            tr.state = .inside
            tr.insideSince = crossed
            tr.enteredAt = time
            tr.dwellArmed = f & RegionStore.Flags.hasDwell != 0
            tr.dwellFired = false
            if f & RegionStore.Flags.notifyOnEntry != 0 {
                events.append(event(.enter, s, fix, time: time, crossedAt: crossed, initial: false))
            }
        } else {
            tr.state = .outside
            tr.dwellArmed = false
            if f & RegionStore.Flags.notifyOnExit != 0 {
                events.append(event(.exit, s, fix, time: time, crossedAt: crossed, initial: false))
            }
        }
        tr.pendingCount = 0
        tr.crossedAt = .nan
        checkDwell(&tr, now: time, eventTime: time, fix: fix, events: &events)
    }

    func event(_ kind: TransitionEvent.Kind, _ s: Int, _ fix: FixRef, time: Double,
               crossedAt: Double, initial: Bool) -> TransitionEvent {
        TransitionEvent(kind: kind, regionID: store.ids[s], subject: fix.pointee.subject, fix: fix.pointee,
                        time: Date(timeIntervalSinceReferenceDate: time),
                        crossedAt: Date(timeIntervalSinceReferenceDate: crossedAt), isInitial: initial)
    }
}
