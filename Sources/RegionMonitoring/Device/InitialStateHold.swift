import Foundation
import Geofencing

/// A region's first determination, held like a crossing before it counts (docs/monitoring.md
/// rule 36).
///
/// The engine decides a region's initial state from its first deciding fix, at once and
/// silently. The device treats that as the start of a transition out of "unknown": the state
/// counts once the engine has kept it, with no transition pending away from it, for the
/// policy's `confirmationTime` and over the fixes it asks for
/// (``HysteresisPolicy/confirmingFixesNeeded(spanning:)``) — the rule that confirms a crossing. A transition pending away restarts the hold; if the engine
/// confirms that transition, the state it leads to is the first one that counts (the engine
/// held it by the crossing rule). So one glitch can neither decide "inside" nor, followed by
/// a minute outside, produce an exit from a region that was never entered.
struct InitialStateHold {
    /// The provisional state (`.inside` / `.outside`).
    let state: RegionState
    /// Start of the current unbroken run; `nil` while a transition away is pending.
    private(set) var since: Date?
    /// Fixes in the current run.
    private(set) var fixes: Int
    /// The latest fix of the current run.
    private(set) var latest: Date?
    /// The engine's initial event, its fix the latest one of the run (the planner re-plans from it).
    private(set) var event: TransitionEvent

    init(_ initial: TransitionEvent) {
        state = initial.kind == .enter ? .inside : .outside
        since = initial.time
        latest = initial.time
        fixes = 1
        event = initial
    }

    /// When the run is long enough by `policy`'s rule with the fixes seen so far, or `nil`.
    func deadline(_ policy: HysteresisPolicy) -> Date? {
        guard let since, let latest,
            fixes >= policy.confirmingFixesNeeded(spanning: latest.timeIntervalSince(since))
        else { return nil }
        return since.addingTimeInterval(policy.confirmationTime)
    }

    /// Counts `fix`, which the engine has just processed; `pendingAway` says whether it left
    /// a transition pending away from ``state``.
    /// - Returns: the time the state counts from, if it does now.
    mutating func see(_ fix: LocationFix, pendingAway: Bool, policy: HysteresisPolicy) -> Date? {
        if let d = deadline(policy), fix.timestamp >= d { return d } // held before this fix
        if pendingAway {
            since = nil
            latest = nil
            fixes = 0
            return nil
        }
        if since == nil { since = fix.timestamp }
        latest = fix.timestamp
        fixes += 1
        event.fix = fix
        return confirmedNow(at: fix.timestamp, policy)
    }

    /// Time passing without a fix (a tick): the state counts once its deadline has passed.
    func see(tick date: Date, policy: HysteresisPolicy) -> Date? {
        guard let d = deadline(policy), date >= d else { return nil }
        return d
    }

    /// Whether the run counts at `date` (also right at the first fix, for a policy that asks
    /// for one fix and no time).
    func confirmedNow(at date: Date, _ policy: HysteresisPolicy) -> Date? {
        guard let d = deadline(policy), date >= d else { return nil }
        return date
    }

    /// The initial event as it counts: dated `date`.
    func confirmedEvent(at date: Date) -> TransitionEvent {
        var e = event
        e.time = date
        e.isInitial = true
        return e
    }
}
