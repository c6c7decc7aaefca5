import Foundation
import Geodesy
import Geofencing

/// The stated conditions (docs/planner.md, "The guarantee and its numbers"): what the planner
/// checks on every fix, how it adapts, and how it tells the app.
extension RegionPlanner {
    /// How far ahead of the planner's clock a fix may be stamped (clock skew).
    static var futureTolerance: TimeInterval { 3_600 }

    /// Validates a fix; one stamped more than an hour ahead of the clock is refused, so that a
    /// single absurd timestamp (1e20) cannot make every later real fix look stale.
    func checkFix(_ fix: LocationFix) throws(PlannerError) {
        do { try fix.validate() } catch { throw .invalidFix(error) }
        let ahead = fix.timestamp.timeIntervalSince(now())
        guard ahead <= Self.futureTolerance else {
            throw .invalidFix(
                .invalidFix(
                    subject: fix.subject, field: "timestamp",
                    reason:
                        "is \(String(format: "%.0f", ahead)) s ahead of the clock (at most \(Int(Self.futureTolerance)) s)"
                ))
        }
    }

    /// The sizing plans are made with: the stated one, adapted to the fix intervals and speeds
    /// seen and to the lateness learned from late events.
    var effectiveSizing: ReplanSizing { adaptedSizing(learnedLatency: currentLearnedLatency) }

    /// ``effectiveSizing`` without what late events taught: what decides that an event is late.
    private var statedSizing: ReplanSizing { adaptedSizing(learnedLatency: 0) }

    private func adaptedSizing(learnedLatency: TimeInterval) -> ReplanSizing {
        let observed = track.recentIntervals.filter { $0 < gapThreshold }.max() ?? 0
        return sizing.adapted(toFixInterval: observed).adapted(toSpeed: track.observedSpeed ?? 0)
            .adapted(toEventLatency: max(monitor.eventLatency, learnedLatency))
    }

    /// The learned lateness while it holds: until ``learnedLatencyLifetime`` after the last
    /// event later than the stated latency.
    var currentLearnedLatency: TimeInterval {
        guard let at = learnedEventLatencyAt, now().timeIntervalSince(at) < Self.learnedLatencyLifetime else {
            return 0
        }
        return learnedEventLatency
    }

    /// How long a learned lateness holds with no event later than the stated latency: a day.
    /// What makes events late (Low Power Mode, a weak network, a device that sleeps) lasts
    /// hours, typically until the next charge; a day of events on time says it has passed, and
    /// a phone late once should not plan for it for ever (docs/planner.md).
    static var learnedLatencyLifetime: TimeInterval { 86_400 }

    /// The longest event latency the planner learns from late events (seconds):
    /// ``ReplanSizing/maximumEventLatency``. A later event is still reported.
    static var learnedLatencyCap: TimeInterval { ReplanSizing.maximumEventLatency }

    /// Reports a monitor event confirmed at `confirmed` that reached the planner later than the
    /// stated latency: the planner holds a position stamped at `seen`, more than the latency
    /// after it — and, for the re-plan region's exit, the first position asked for after it, so
    /// one fix interval more (and a second of rounding) is allowed. From then on the planner
    /// sizes its plans for that lateness (up to ``learnedLatencyCap``), as it does for the fix
    /// intervals and speeds it sees: one late event is reported, the next ones are planned for.
    /// Every event later than the stated latency, reported or planned for, keeps what was
    /// learned for another ``learnedLatencyLifetime``; after that it is forgotten.
    func noteLatency(confirmedAt confirmed: Date, seenAt seen: Date) {
        let late = seen.timeIntervalSince(confirmed)
        let stated = statedSizing
        guard late > stated.eventLatency + stated.maximumFixInterval + 1 else { return }
        let sizing = effectiveSizing
        if late > sizing.eventLatency + sizing.maximumFixInterval + 1 {
            notice(.conditionBroken(.eventLatencyExceeded(lateBy: late, stated: sizing.eventLatency), at: seen))
        }
        learnedEventLatency = max(currentLearnedLatency, min(late, Self.learnedLatencyCap))
        learnedEventLatencyAt = now()
    }

    /// Whether the trusted fix `x` (slot mode) lies beyond where the re-plan region's exit must
    /// have been reported within the stated latency while none has come: then the exit is late
    /// or lost, which is reported, and the planner re-plans at `x` (the cheap trigger: any
    /// position the app has, a significant-location-change fix included, docs/planner.md).
    func exitOverdue(at x: LocationFix) -> Bool {
        guard let plan, plan.mode == .slots, plan.radius.isFinite, replanRegistered, !awaitingFix else {
            return false
        }
        let bound = effectiveSizing.exitBound(radius: plan.radius)
        let d = distance(plan.center, x.coordinate)
        guard d > bound + 1 else { return false }
        notice(.conditionBroken(.exitOverdue(distance: d, bound: bound), at: x.timestamp))
        return true
    }

    /// An interval this long is a gap, not a fix interval: four times the longer of the stated
    /// interval and the median of the recent ones (so a steady 60 s cadence is an interval,
    /// a 10-minute tunnel among 1 s fixes is a gap), and at least 30 s.
    var gapThreshold: Double {
        let recent = track.recentIntervals.sorted()
        let median = recent.isEmpty ? 0 : recent[recent.count / 2]
        return max(30, 4 * max(sizing.maximumFixInterval, median))
    }

    /// Whether `x` and the fix before it both decide `region` on `side`: then nothing is
    /// pending for it at `x` in any engine that saw both (the earlier fix cancelled any run
    /// towards the other side, and `x` starts none), so it can change hands at `x`.
    func settled(_ region: Region, _ side: RegionState, at x: LocationFix) -> Bool {
        policy.settled(region, side, at: x, previous: track.previous)
    }

    func notice(_ n: PlannerNotice) {
        noticeLog.append(n)
        if case .conditionBroken(let b, _) = n {
            lastBreach = b
            breachSincePlan = true
            statistics.conditionBreaches += 1
        }
    }

    /// Reports the first fix of a run that claims a coarser accuracy than the sizing assumed but
    /// that the policy still uses (a coarser one decides nothing, so breaks nothing).
    func noteAccuracy(of fix: LocationFix) {
        guard let stated = sizing.maximumAccuracy else { return }
        let a = fix.horizontalAccuracy ?? policy.assumedAccuracy
        let coarse = a > stated + 1e-9 && a <= policy.maximumAccuracy
        if coarse, !inCoarseRun {
            notice(.conditionBroken(.accuracyExceeded(metres: a, stated: stated), at: fix.timestamp))
        }
        inCoarseRun = coarse
    }

    /// Reports the interval `dt` that the received fix `fix` ended (``TrackFilter/receivedInterval``,
    /// already among the recent ones): a gap, or a fix interval longer than the stated one and
    /// than any recent one (one notice per increase).
    func noteInterval(_ dt: Double, at fix: LocationFix) {
        if dt >= gapThreshold {
            notice(.conditionBroken(.gap(seconds: dt), at: fix.timestamp))
        } else if dt > sizing.maximumFixInterval + 1e-6,
            dt > (track.recentIntervals.dropLast().filter { $0 < gapThreshold }.max() ?? sizing.maximumFixInterval)
        {
            notice(
                .conditionBroken(
                    .fixIntervalExceeded(observedSeconds: dt, statedSeconds: sizing.maximumFixInterval),
                    at: fix.timestamp))
        }
    }

    /// Turns what the track filter saw into notices and statistics.
    func noteConditions(after verdict: TrackFilter.Verdict, fix: LocationFix) {
        switch verdict {
        case .suspect:
            statistics.glitchesRejected += 1
            if let a = track.accepted {
                notice(
                    .conditionBroken(
                        .glitchRejected(distance: distance(a.coordinate, fix.coordinate)), at: fix.timestamp))
            }
        case .jumped:
            if let p = track.previous {
                let dt = max(1e-3, fix.timestamp.timeIntervalSince(p.timestamp))
                notice(
                    .conditionBroken(
                        .speedExceeded(
                            metresPerSecond: distance(p.coordinate, fix.coordinate) / dt,
                            stated: sizing.maximumSpeed), at: fix.timestamp))
            }
        case .accepted, .stale:
            break
        }
        noteAccuracy(of: fix)
        if verdict == .accepted || verdict == .jumped, track.accepted == fix {
            if let o = odometerFix { statistics.distanceMeters += distance(o.coordinate, fix.coordinate) }
            odometerFix = fix
        }
    }
}
