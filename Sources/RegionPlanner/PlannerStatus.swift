import Foundation
import Geodesy

/// How the planner evaluates the catalogue right now.
public enum PlannerMode: String, Sendable, Hashable, Codable {
    /// The nearest regions sit in the monitor's slots, with a re-plan region around them.
    case slots
    /// Dense area: continuous location updates, the nearby catalogue evaluated by the
    /// planner's own `Engine` (software geofencing).
    case hybrid
}

/// A stated condition of the guarantee (docs/planner.md) that the planner saw broken.
public enum ConditionBreach: Sendable, Hashable {
    /// Fixes came further apart than the sizing's `maximumFixInterval`; the planner now
    /// sizes with the observed interval.
    case fixIntervalExceeded(observedSeconds: Double, statedSeconds: Double)
    /// No fix for this long (a tunnel, the phone asleep).
    case gap(seconds: Double)
    /// Two agreeing fixes imply more than `maximumSpeed` (plus the glitch allowance).
    case speedExceeded(metresPerSecond: Double, stated: Double)
    /// The fix of a re-plan event lies beyond where the plan's assumptions allow
    /// (`distance` from the plan centre, `bound` = r + exit margin + travel allowance):
    /// a region may have been entered unregistered. The planner re-plans from fresh fixes.
    case planOvertaken(distance: Double, bound: Double)
    /// A monitor event arrived after a position stamped `lateBy` seconds after the fix that
    /// confirmed it: later than the stated event latency (`stated`, the longer of the sizing's
    /// and the monitor's). Events of unregistered regions may have been missed meanwhile.
    case eventLatencyExceeded(lateBy: Double, stated: Double)
    /// A position lies `distance` from the plan centre, beyond where the re-plan region's exit
    /// must have been reported within the stated latency (`bound` = r + exit margin + travel
    /// allowance), and no exit has come: the monitor's events are late or lost. The planner
    /// re-plans at that position.
    case exitOverdue(distance: Double, bound: Double)
    /// A fix far off the track was set aside (it moves no plan until the next fixes agree).
    case glitchRejected(distance: Double)
    /// A fix claimed a coarser accuracy than the sizing's `maximumAccuracy` (yet fine enough for
    /// the policy to use): its noise margin is wider than the plan allowed for. Reported once
    /// per run of such fixes.
    case accuracyExceeded(metres: Double, stated: Double)
    /// After a relaunch in hybrid mode the planner's engines could not be restored as saved
    /// (an older saved state, or working-set regions changed meanwhile): they were rebuilt from
    /// the last fix, so a transition pending at the relaunch started over.
    case stateNotRestored
}

/// Something the app may want to know about the planner (``RegionPlanner/takeNotices()``).
public enum PlannerNotice: Sendable, Hashable {
    /// The planner switched mode at `time` (fix time).
    case modeChanged(to: PlannerMode, at: Date)
    /// A stated condition was broken at `time`; events near then may differ from a
    /// whole-catalogue engine's.
    case conditionBroken(ConditionBreach, at: Date)
    /// The monitor refused a registration after accepting it (``RegionPlanner/handleRefusal(_:)``);
    /// the planner re-plans at the next fix without that slot.
    case registrationRefused(SlotMonitorError, at: Date)
}

/// What the app can read at any time (``RegionPlanner/status``).
public struct PlannerStatus: Sendable, Hashable {
    /// Slot or hybrid mode.
    public var mode: PlannerMode
    /// Whether the plan in force keeps the guarantee and no stated condition has been seen
    /// broken since it was made.
    public var guaranteed: Bool
    /// Whether the planner has asked the monitor for continuous location updates (hybrid
    /// mode, or waiting for a fix to re-plan from).
    public var locationUpdatesRequested: Bool
    /// The fix interval the sizing uses now: the stated one, or the longer observed one.
    public var effectiveFixInterval: Double
    /// The speed bound the sizing uses now: the stated one, or the faster speed the fixes show.
    public var effectiveMaximumSpeed: Double
    /// The event latency the sizing covers now: the longer of the sizing's and the monitor's.
    public var effectiveEventLatency: Double
    /// The last broken condition, if any.
    public var lastBreach: ConditionBreach?
}
