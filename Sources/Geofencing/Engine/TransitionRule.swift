import Foundation

/// What makes an enter, an exit and a dwell: the whole per-(subject, region) state machine.
///
/// The engine finds which regions a fix concerns and hands each one's ``Track`` to this rule
/// with the fix's signed distance; everything that decides an event is here, in order:
///
/// 1. **Evidence** (``FixMargins``): a fix *decides* for a region only when it lies past the
///    boundary by the margin `max(noise, fixed)`, where `noise = minimumMarginMeters +
///    accuracyMultiplier × accuracy` (beyond the ±20 m a person at a boundary wanders, by
///    about three standard deviations of the fix's error) and `fixed = marginMeters`, capped at
///    `maximumMarginFraction × size`. A fix whose noise margin does not fit in a region that
///    small cannot decide "inside" it (it still decides "outside" past the margin), and a fix
///    that decides neither changes nothing. The accuracy used is never better than the
///    subject's recent fixes' (``effectiveAccuracy(claimed:previous:)``), so one fix claiming
///    ±3 m among ±45 m ones gets a ±45 m margin.
/// 2. **First state** (``settleInitialState``): the first look at a region, if it decides,
///    sets `inside` / `outside` silently (unless an initial trigger asks for an event); after
///    undecided fixes, deciding ones must hold like a transition.
/// 3. **Pending** (``extendOrCancel``): a deciding fix on the far side starts or extends a
///    pending transition; any other usable fix cancels it.
/// 4. **Confirm** (``confirmIfHeld``, ``hasHeld``, ``confirm``): the pending run must have
///    lasted `confirmationTime` and hold `minimumConfirmingFixes` (4) deciding fixes — a far-off
///    fix must be confirmed by the next ones, so a jump of up to three fixes never confirms.
///    Sparse fixes need fewer: one fewer for every `fixCountRelief` (30 s) they span, at least
///    two, so a phone reporting once a minute confirms with its second fix, while a burst of
///    bad fixes (seconds long) still needs four.
/// 5. **Crossing time** (``noteCrossing``): interpolated where the signed distance passed
///    through zero, between the last fix on the near side and the first on the far side.
/// 6. **Dwell** (``checkDwell``): one dwell event per stay, `dwell` after the entry crossing,
///    held back while an exit is pending.
/// 7. **Time alone** (``isDue``, ``confirmDue``): what the fixes already established is
///    confirmed when its time runs out, without waiting for another fix.
///
/// A subject lingering at a boundary changes state at most once: to flip, a fix must be past
/// the boundary by the noise margin (≥ 20 m + 2 accuracies), and to flip back, as far past on
/// the other side, held for the confirmation time each way. docs/semantics.md gives the numbers.
struct TransitionRule: Sendable {
    let confirmationTime: Double
    let minimumConfirmingFixes: Int
    /// `fixCountRelief`, 0 for none.
    let fixCountRelief: Double

    init(_ policy: HysteresisPolicy) {
        confirmationTime = policy.confirmationTime
        minimumConfirmingFixes = max(1, policy.minimumConfirmingFixes)
        fixCountRelief = policy.fixCountRelief ?? 0
    }

    /// What the rule reads of a track's region.
    struct RegionFacts {
        var flags: UInt8
        /// The region's dwell time in seconds (NaN for none).
        var dwellTime: Double

        func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
    }

    /// Where the rule's events go: kind, time, estimated crossing time, whether initial.
    typealias Emit = (TransitionEvent.Kind, Double, Double, Bool) -> Void

    // MARK: One fix

    /// Applies one usable fix at signed distance `sd` (metres, negative inside) and time `t`,
    /// with its `margin` for this region.
    @inline(__always)
    func apply(
        _ tr: inout Track, sd: Double, margin: RegionMargin, at t: Double, region: RegionFacts,
        trigger: InitialTrigger, emit: Emit
    ) {
        let side = margin.side(sd: sd)
        // Too coarse to decide "inside" and not far enough out to decide "outside": a fix
        // this vague neither starts, extends nor cancels a transition. It still counts as a
        // first look at the region, so that a glitch after it must hold like a transition.
        if side == nil, !margin.decidesInside, tr.state != .unknown { return }
        if tr.state == .unknown {
            settleInitialState(&tr, side: side, at: t, region: region, trigger: trigger, emit: emit)
        } else {
            noteCrossing(&tr, sd: sd, at: t)
            extendOrCancel(&tr, deciding: side != nil && side != tr.state, at: t)
            confirmIfHeld(&tr, at: t, region: region, emit: emit)
        }
        tr.lastSD = sd
        tr.lastTime = t
        checkDwell(&tr, now: t, eventTime: t, region: region, emit: emit)
    }

    /// From `unknown`: the subject's first look at a region, if it decides, sets the state at
    /// once — what Core Location does at registration. Later, after fixes too close to the
    /// boundary to decide, deciding fixes must hold like a transition (``confirmIfHeld``'s time
    /// and fix count): a subject seen 60 m inside that jumps out for two fixes is not taken to
    /// be outside. Silent unless an initial trigger (the call's or the region's) asks for the
    /// event. A fix that does not decide, or decides the other side, starts the count again.
    @inline(__always)
    func settleInitialState(
        _ tr: inout Track, side: RegionState?, at t: Double, region: RegionFacts,
        trigger: InitialTrigger, emit: Emit
    ) {
        guard let side else {
            tr.pendingCount = 0
            return
        }
        if tr.lastSD.isNaN {
            setInitialState(&tr, side, since: t, at: t, region: region, trigger: trigger, emit: emit)
            return
        }
        // While counting, the previous fix decided too, on the side of its distance's sign.
        if (tr.lastSD <= 0) != (side == .inside) { tr.pendingCount = 0 }
        extendOrCancel(&tr, deciding: true, at: t)
        guard hasHeld(tr, latestFix: t, at: t) else { return }
        setInitialState(&tr, side, since: tr.pendingSince, at: t, region: region, trigger: trigger, emit: emit)
    }

    /// Sets the first state, `since` the first fix that showed it, with its initial event if asked.
    @inline(__always)
    func setInitialState(
        _ tr: inout Track, _ side: RegionState, since: Double, at t: Double, region: RegionFacts,
        trigger: InitialTrigger, emit: Emit
    ) {
        typealias F = RegionStore.Flags
        tr.state = side
        tr.pendingCount = 0
        if side == .inside {
            tr.insideSince = since
            tr.enteredAt = t
            let wantsDwell = trigger.contains(.dwell) || region.has(F.initialDwell)
            tr.dwellArmed = wantsDwell && region.has(F.hasDwell)
            tr.dwellFired = false
            if trigger.contains(.enter) || region.has(F.initialEnter), region.has(F.notifyOnEntry) {
                emit(.enter, t, since, true)
            }
        } else if trigger.contains(.exit) || region.has(F.initialExit), region.has(F.notifyOnExit) {
            emit(.exit, t, since, true)
        }
    }

    /// Keeps `crossedAt`, the estimated time the boundary was crossed towards the far side:
    /// set at the first fix on the far side (interpolated from the last near-side fix),
    /// cleared by any fix back on the near side.
    @inline(__always)
    func noteCrossing(_ tr: inout Track, sd: Double, at t: Double) {
        let towardInside = tr.state == .outside
        guard towardInside ? sd <= 0 : sd > 0 else {
            tr.crossedAt = .nan
            return
        }
        guard tr.crossedAt.isNaN else { return }
        let prev = tr.lastSD
        let prevNear = towardInside ? prev > 0 : prev <= 0
        if prevNear, tr.lastTime < t {
            tr.crossedAt = tr.lastTime + (t - tr.lastTime) * prev / (prev - sd)
        } else {
            tr.crossedAt = tr.lastTime.isNaN ? t : tr.lastTime
        }
    }

    /// A deciding fix starts (at `t`) or extends the pending transition; any other usable fix
    /// cancels it.
    @inline(__always)
    func extendOrCancel(_ tr: inout Track, deciding: Bool, at t: Double) {
        guard deciding else {
            tr.pendingCount = 0
            return
        }
        if tr.pendingCount == 0 { tr.pendingSince = t }
        tr.pendingCount = min(tr.pendingCount + 1, Int32.max - 1)
    }

    /// Confirms the pending transition if it has held long enough, with enough fixes.
    @inline(__always)
    func confirmIfHeld(_ tr: inout Track, at t: Double, region: RegionFacts, emit: Emit) {
        guard hasHeld(tr, latestFix: t, at: t) else { return }
        confirm(&tr, at: t, region: region, emit: emit)
    }

    /// Whether the pending run, whose latest deciding fix was at `latestFix`, is confirmed at
    /// `t`: it has lasted `confirmationTime`, with the deciding fixes the policy asks for over
    /// the time they span (``HysteresisPolicy/confirmingFixesNeeded(spanning:)``: four, fewer
    /// when sparse fixes span longer). Time alone counts towards the first, never the second.
    @inline(__always)
    func hasHeld(_ tr: Track, latestFix: Double, at t: Double) -> Bool {
        guard t - tr.pendingSince >= confirmationTime else { return false }
        let count = Int(tr.pendingCount)
        if count >= minimumConfirmingFixes { return true } // the common case: no relief needed
        return fixCountRelief > 0
            && count
                >= HysteresisPolicy.confirmingFixesNeeded(
                    most: minimumConfirmingFixes, relief: fixCountRelief, spanning: latestFix - tr.pendingSince)
    }

    /// Flips the state of a track whose pending transition is confirmed at `time`; the event's
    /// crossing time is the interpolated one (never after the first deciding fix).
    func confirm(_ tr: inout Track, at time: Double, region: RegionFacts, emit: Emit) {
        typealias F = RegionStore.Flags
        let crossed = tr.crossedAt.isNaN ? tr.pendingSince : min(tr.crossedAt, tr.pendingSince)
        if tr.state == .outside {
            tr.state = .inside
            tr.insideSince = crossed
            tr.enteredAt = time
            tr.dwellArmed = region.has(F.hasDwell)
            tr.dwellFired = false
            if region.has(F.notifyOnEntry) { emit(.enter, time, crossed, false) }
        } else {
            tr.state = .outside
            tr.dwellArmed = false
            if region.has(F.notifyOnExit) { emit(.exit, time, crossed, false) }
        }
        tr.pendingCount = 0
        tr.crossedAt = .nan
        checkDwell(&tr, now: time, eventTime: time, region: region, emit: emit)
    }

    // MARK: Dwell

    /// Emits the dwell event of an inside track once it has been inside for the region's
    /// dwell time (Android's loitering delay), measured from the estimated entry crossing.
    /// Held back while an exit is pending: it fires at the fix that cancels the exit, or
    /// never if the exit is confirmed.
    /// - Parameters:
    ///   - now: the time up to which the subject is known to have stayed.
    ///   - eventTime: the event's time when it fires now (`nil`: the moment the dwell time
    ///     ran out, but not before the entry was confirmed).
    @inline(__always)
    func checkDwell(_ tr: inout Track, now: Double, eventTime: Double?, region: RegionFacts, emit: Emit) {
        guard tr.state == .inside, tr.dwellArmed, !tr.dwellFired, tr.pendingCount == 0 else { return }
        let due = tr.insideSince + region.dwellTime
        guard due <= now else { return }
        tr.dwellFired = true
        emit(.dwell, eventTime ?? max(due, tr.enteredAt), tr.insideSince, false)
    }

    // MARK: Time alone

    /// Whether `tr` has something to confirm by time alone at `t`: a pending transition with
    /// its fixes whose confirmation time has run out, or a dwell time.
    /// - Parameter before: only what ran out strictly before `t` (used by `process`, so that
    ///   a fix arriving exactly at the deadline confirms with itself).
    @inline(__always)
    func isDue(_ tr: Track, at t: Double, before: Bool, dwellTime: () -> Double) -> Bool {
        if tr.pendingCount > 0 { return pendingDue(tr, at: t, before: before) }
        return tr.state == .inside && tr.dwellArmed && !tr.dwellFired
            && tr.insideSince + dwellTime() <= (before ? t.nextDown : t)
    }

    @inline(__always)
    func pendingDue(_ tr: Track, at t: Double, before: Bool) -> Bool {
        guard tr.state != .unknown else { return false }
        let deadline = tr.pendingSince + confirmationTime
        // The latest fix applied to a pending track is its latest deciding one (any other
        // cancels the run, or is too vague to touch the track).
        return (before ? deadline < t : deadline <= t) && hasHeld(tr, latestFix: tr.lastTime, at: deadline)
    }

    /// Confirms what is due on `tr` at `t` (``isDue(_:at:before:dwellTime:)``), each event
    /// stamped with the moment its condition was met.
    @inline(__always)
    func confirmDue(_ tr: inout Track, at t: Double, before: Bool, region: RegionFacts, emit: Emit) {
        if pendingDue(tr, at: t, before: before) {
            confirm(&tr, at: tr.pendingSince + confirmationTime, region: region, emit: emit)
        }
        checkDwell(&tr, now: before ? t.nextDown : t, eventTime: nil, region: region, emit: emit)
    }

    // MARK: Accuracy

    /// The accuracy a fix is taken at: its claim, but no better than the median claim of it
    /// and the subject's `previous` four usable fixes (0 where there were none). A fix claiming
    /// ±3 m among ±45 m ones counts as ±45 m: a lying accuracy cannot shrink the margin below
    /// what the track shows; an occasional ±400 m fix among ±8 m ones leaves the median at 8.
    @inline(__always)
    static func effectiveAccuracy(claimed: Double, previous p: SIMD4<Float>) -> Double {
        max(claimed, median(Double(p[0]), Double(p[1]), Double(p[2]), Double(p[3]), claimed))
    }

    /// The median of five values (a sorting network's comparisons, no allocation).
    @inline(__always)
    static func median(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double) -> Double {
        var v = (a, b, c, d, e)
        @inline(__always) func order(_ x: inout Double, _ y: inout Double) { if x > y { swap(&x, &y) } }
        order(&v.0, &v.1)
        order(&v.3, &v.4)
        order(&v.2, &v.4)
        order(&v.2, &v.3)
        order(&v.0, &v.3)
        order(&v.0, &v.2)
        order(&v.1, &v.4)
        order(&v.1, &v.3)
        order(&v.1, &v.2)
        return v.2
    }
}

/// How far past a region's boundary one fix must lie to decide, and whether it may decide
/// "inside" (``FixMargins/margin(regionSize:)``).
@usableFromInline
struct RegionMargin: Sendable {
    @usableFromInline let meters: Double
    @usableFromInline let decidesInside: Bool

    @inlinable
    init(meters: Double, decidesInside: Bool) {
        self.meters = meters
        self.decidesInside = decidesInside
    }

    /// The side a fix at signed distance `sd` decides, if any.
    @inlinable @inline(__always)
    func side(sd: Double) -> RegionState? {
        if sd > meters { return .outside }
        return sd < -meters && decidesInside ? .inside : nil
    }
}

/// The margins of one fix (``HysteresisPolicy/margins(accuracy:)``), its part computed once and
/// the absent limits as infinities; ``margin(regionSize:)`` is the one formula of
/// ``HysteresisPolicy/margin(accuracy:regionSize:)``.
@usableFromInline
struct FixMargins: Sendable {
    @usableFromInline let accuracy: Double
    /// `minimumMarginMeters + accuracyMultiplier × accuracy`: how far past the boundary the fix
    /// must be for its error not to explain it.
    @usableFromInline let noise: Double
    /// `marginMeters`, 0 when absent.
    @usableFromInline let fixed: Double
    @usableFromInline let ratio: Double
    @usableFromInline let cap: Double

    @inlinable
    init(accuracy: Double, noise: Double, fixed: Double, ratio: Double, cap: Double) {
        self.accuracy = accuracy
        self.noise = noise
        self.fixed = fixed
        self.ratio = ratio
        self.cap = cap
    }

    /// The margin against a region of `size` metres (> 0), and whether the fix may decide
    /// "inside" it: not when it is too coarse for a region that small (its accuracy exceeds
    /// `ratio × size`, or its noise margin `cap × size`). A fix past the margin outside decides
    /// "outside" whatever the region's size: no region is too small to be left.
    @inlinable @inline(__always)
    func margin(regionSize size: Double) -> RegionMargin {
        let room = cap * size
        let coarse = accuracy > ratio * size || noise > room
        // Swift.max(noise, Swift.min(fixed, room)), spelled out: the generic functions were
        // left calls in the batch loop (the same results, NaN included).
        let capped = room < fixed ? room : fixed
        return RegionMargin(meters: capped >= noise ? capped : noise, decidesInside: !coarse)
    }

    /// The largest margin any region can get.
    @inlinable var upper: Double { Swift.max(noise, fixed) }
}
