import Foundation
import Geofencing

/// What the planner must assume about the monitor and the subject to size the re-plan
/// region; docs/planner.md derives the rule and proves it.
///
/// The monitor confirms an exit of a circle of radius `r` when deciding fixes stay at least
/// `exitMargin(r) = min(exitMarginCap, exitMarginFraction × r)` outside it for
/// `confirmationTime`; a catalogue region's state is first set (silently) by a fix at least
/// `catalogueMarginCeiling` from its boundary. With apparent speed at most `maximumSpeed`,
/// deciding fixes at least every `maximumFixInterval`, and single-fix glitches of at most
/// `glitchAllowance`, and the exit reported at most `eventLatency` after its confirmation, the
/// subject's fixes stay within
///
///     travel = maximumSpeed × (confirmationTime + 3 × maximumFixInterval + eventLatency)
///              + glitchAllowance
///
/// of the point where the exit started to count (two fix intervals around the confirmation,
/// one more for the fix a re-plan may wait for when the confirming fix is suspect, and the
/// time the event may take to arrive). The radius is the largest `r` with
///
///     r + exitMargin(r) ≤ D − travel − clearance
///     clearance = catalogueMarginCeiling + maximumSpeed × maximumFixInterval + glitchAllowance
///
/// where `D` is the signed distance to the nearest *unregistered* catalogue region.
///
/// ```swift
/// let sizing = ReplanSizing(policy: .coreLocation, largestRegionSize: 500,
///                           maximumSpeed: 40, maximumFixInterval: 1)
/// sizing.radius(nearestUnregistered: 2_500)   // 1,179 m, or nil when too close
/// ```
public struct ReplanSizing: Sendable, Hashable {
    /// Largest fixed part of the exit margin (metres).
    public var exitMarginCap: Double
    /// The exit margin as a fraction of the radius, when the monitor caps it so (nil: no cap).
    public var exitMarginFraction: Double?
    /// Largest margin any catalogue region can get (metres): a fix this far outside decides "outside".
    public var catalogueMarginCeiling: Double
    /// Seconds deciding fixes must hold before the monitor confirms, including the time
    /// the minimum number of confirming fixes needs.
    public var confirmationTime: TimeInterval
    /// Bound on the apparent speed of the fixes (metres per second).
    public var maximumSpeed: Double
    /// Bound on the time between consecutive deciding fixes (seconds).
    public var maximumFixInterval: TimeInterval
    /// Extra distance for isolated fix glitches (metres).
    public var glitchAllowance: Double
    /// Smallest useful re-plan radius (metres); below it the guarantee is reported broken.
    public var minimumRadius: Double
    /// How many deciding fixes a confirmation needs (the monitor policy's minimum): with fixes
    /// further apart than the confirmation time, a confirmation lasts `(n − 1)` fix intervals.
    public var minimumConfirmingFixes: Int
    /// The coarsest fix accuracy the margins were sized for (metres), when stated: a fix that
    /// claims more, yet is fine enough for the policy to use, breaks the guarantee (the planner
    /// reports ``ConditionBreach/accuracyExceeded(metres:stated:)``). `nil`: not checked.
    public var maximumAccuracy: Double?
    /// The longest a monitor event may arrive after the fix that confirmed it (seconds). The
    /// planner uses the longer of this and its monitor's ``SlotMonitor/eventLatency``; an
    /// event later than that is reported (``ConditionBreach/eventLatencyExceeded(lateBy:stated:)``).
    public var eventLatency: TimeInterval = 0
    /// The minimum radius asked for at construction (before the first-fix floor).
    var statedMinimumRadius: Double?

    /// Core Location's stated event latency: entry and exit notifications "typically arrive
    /// within 3–5 minutes" (docs/ios.md); the Core Location adapters' default.
    public static let coreLocationEventLatency: TimeInterval = 300

    /// The longest event latency a plan is ever sized for (seconds): three times the top of
    /// Core Location's "typically within 3–5 minutes". An event later than that is a device
    /// that slept or lost its network, not a latency to plan for (docs/planner.md).
    public static let maximumEventLatency: TimeInterval = 3 * coreLocationEventLatency

    /// `latency` within `0...maximumEventLatency`; not a number counts as the longest.
    public static func boundedEventLatency(_ latency: TimeInterval) -> TimeInterval {
        latency.isNaN ? maximumEventLatency : min(maximumEventLatency, max(0, latency))
    }

    public init(
        exitMarginCap: Double, exitMarginFraction: Double?, catalogueMarginCeiling: Double,
        confirmationTime: TimeInterval, maximumSpeed: Double, maximumFixInterval: TimeInterval,
        glitchAllowance: Double = 0, minimumRadius: Double? = nil, minimumConfirmingFixes: Int = 2
    ) {
        self.minimumConfirmingFixes = max(1, minimumConfirmingFixes)
        self.exitMarginCap = exitMarginCap
        self.exitMarginFraction = exitMarginFraction
        self.catalogueMarginCeiling = catalogueMarginCeiling
        self.confirmationTime = confirmationTime
        self.maximumSpeed = maximumSpeed
        self.maximumFixInterval = maximumFixInterval
        self.glitchAllowance = glitchAllowance
        self.minimumRadius = 1
        self.statedMinimumRadius = minimumRadius
        // The re-plan region's own first fix must decide "inside": r − exitMargin(r) ≥ step.
        let step = maximumSpeed * maximumFixInterval + glitchAllowance + 1
        var floor = step + exitMarginCap
        if let f = exitMarginFraction, f < 1 { floor = min(floor, step / (1 - f)) }
        self.minimumRadius = max(minimumRadius ?? 0, floor)
    }

    /// The bounds for an `Engine` with `policy`, for catalogue regions up to
    /// `largestRegionSize` metres (radius, or √(area/π) for polygons) and fixes of accuracy
    /// at most `maximumAccuracy`.
    ///
    /// Every condition has a stated default, and the planner checks it on every fix:
    /// - `maximumAccuracy`: the policy's ``Geofencing/HysteresisPolicy/assumedAccuracy``
    ///   (±65 m with the presets: a phone's GPS in the open claims ±5–20 m, Wi-Fi ±30–65 m).
    ///   A fix that claims more is reported (``ConditionBreach/accuracyExceeded(metres:stated:)``,
    ///   `guaranteed` false); pass the policy's `maximumAccuracy` (±1 km) to size for every
    ///   usable fix, at the price of a 2 km margin that keeps the planner in hybrid mode.
    /// - `glitchAllowance`: twice the accuracy — two consecutive fixes that each err by what
    ///   they claim are that far apart beyond the travel. A larger single-fix jump is set
    ///   aside and reported (``ConditionBreach/glitchRejected(distance:)``).
    public init(
        policy: HysteresisPolicy, largestRegionSize: Double, maximumSpeed: Double,
        maximumFixInterval: TimeInterval, maximumAccuracy: Double? = nil,
        glitchAllowance: Double? = nil
    ) {
        let accuracy = min(maximumAccuracy ?? policy.assumedAccuracy, policy.maximumAccuracy)
        let glitchAllowance = glitchAllowance ?? 2 * accuracy
        // The policy's margins for a fix of this accuracy: `noise` (20 m + 2a), and at unbounded
        // size `cap` = max(noise, fixed), the most any region gets. Against a region of size S the
        // margin is max(noise, min(fixed, fraction × S)): at most min(cap, max(noise, fraction ×
        // largestRegionSize)) for the catalogue, even from a fix too coarse to decide "inside"
        // it, which still decides "outside". The re-plan circle is kept at least noise / fraction
        // in radius, so no usable fix is too coarse for it and its exit margin is exactly
        // min(cap, fraction × r) (ReplanSizingTests checks both against the policy).
        let noise = policy.minimumMarginMeters + policy.accuracyMultiplier * accuracy
        let cap = policy.exitMargin(accuracy: accuracy, regionSize: .infinity)
        var ceiling = cap
        if let f = policy.maximumMarginFraction { ceiling = min(cap, max(noise, f * largestRegionSize)) }
        let confirmation = max(
            policy.confirmationTime,
            Double(max(policy.minimumConfirmingFixes - 1, 0)) * maximumFixInterval)
        // Every usable fix must decide for the re-plan circle: the accuracy-to-size limit, and
        // its noise margin within the fraction of the radius.
        var smallest = policy.maximumAccuracyToSizeRatio.map { accuracy / $0 } ?? 0
        if let f = policy.maximumMarginFraction, f > 0 { smallest = max(smallest, noise / f) }
        self.init(
            exitMarginCap: cap, exitMarginFraction: policy.maximumMarginFraction,
            catalogueMarginCeiling: ceiling, confirmationTime: confirmation,
            maximumSpeed: maximumSpeed, maximumFixInterval: maximumFixInterval,
            glitchAllowance: glitchAllowance, minimumRadius: smallest,
            minimumConfirmingFixes: policy.minimumConfirmingFixes)
        self.maximumAccuracy = accuracy
    }

    /// Distance the fixes may cover while an exit is being confirmed (metres).
    public var travelAllowance: Double {
        maximumSpeed * (confirmationTime + 3 * maximumFixInterval + eventLatency) + glitchAllowance
    }

    /// The same bounds for fixes `interval` seconds apart, when that is longer than
    /// ``maximumFixInterval`` (the planner's adaptation to the interval it observes): the
    /// confirmation then lasts at least `(minimumConfirmingFixes − 1)` intervals (three with
    /// the presets' four deciding fixes).
    public func adapted(toFixInterval interval: TimeInterval) -> ReplanSizing {
        guard interval > maximumFixInterval, interval.isFinite else { return self }
        let held = Double(minimumConfirmingFixes - 1) * interval
        return rebuilt(
            confirmationTime: max(confirmationTime, held), maximumSpeed: maximumSpeed, maximumFixInterval: interval)
    }

    /// The same bounds for a subject moving at `speed` m/s, when that is faster than
    /// ``maximumSpeed`` (the planner's adaptation to a speed the fixes keep showing, a train).
    public func adapted(toSpeed speed: Double) -> ReplanSizing {
        guard speed > maximumSpeed, speed.isFinite else { return self }
        return rebuilt(confirmationTime: confirmationTime, maximumSpeed: speed, maximumFixInterval: maximumFixInterval)
    }

    /// These bounds with other timing and speed, built anew (the minimum radius derives from
    /// them), every other stated condition carried over.
    private func rebuilt(
        confirmationTime: TimeInterval, maximumSpeed: Double, maximumFixInterval: TimeInterval
    ) -> ReplanSizing {
        var adapted = ReplanSizing(
            exitMarginCap: exitMarginCap, exitMarginFraction: exitMarginFraction,
            catalogueMarginCeiling: catalogueMarginCeiling, confirmationTime: confirmationTime,
            maximumSpeed: maximumSpeed, maximumFixInterval: maximumFixInterval, glitchAllowance: glitchAllowance,
            minimumRadius: statedMinimumRadius, minimumConfirmingFixes: minimumConfirmingFixes)
        adapted.maximumAccuracy = maximumAccuracy
        adapted.eventLatency = eventLatency
        return adapted
    }

    /// The same bounds for a monitor whose events may arrive `latency` seconds late, when that
    /// is longer than ``eventLatency``.
    public func adapted(toEventLatency latency: TimeInterval) -> ReplanSizing {
        guard latency > eventLatency, latency.isFinite else { return self }
        var adapted = self
        adapted.eventLatency = latency
        return adapted
    }

    /// The bound on how far from the plan centre the fix that confirms the re-plan region's
    /// exit can lie when the assumptions hold: `r + exitMargin(r) + travelAllowance`.
    public func exitBound(radius r: Double) -> Double {
        r + exitMargin(radius: r) + travelAllowance
    }

    /// Distance an unregistered region must keep from a fix so that, registered at the next
    /// re-plan, its first fix sets it "outside" (metres).
    public var registrationClearance: Double {
        catalogueMarginCeiling + maximumSpeed * maximumFixInterval + glitchAllowance
    }

    /// The most two consecutive fixes may lie apart under the stated conditions: `v·Δ + J`.
    public var step: Double { maximumSpeed * maximumFixInterval + glitchAllowance }

    /// The exit margin the monitor applies to a circle of radius `r`.
    public func exitMargin(radius r: Double) -> Double {
        if let f = exitMarginFraction { return min(exitMarginCap, f * r) }
        return exitMarginCap
    }

    /// The re-plan radius when the nearest unregistered region is `distance` metres away
    /// (signed boundary distance), or `nil` if no radius of at least ``minimumRadius`` keeps
    /// the guarantee. `.infinity` when nothing is unregistered.
    public func radius(nearestUnregistered distance: Double) -> Double? {
        if distance == .infinity { return .infinity }
        let budget = distance - travelAllowance - registrationClearance - 1 // 1 m for rounding
        // Largest r with r + min(cap, f·r) ≤ budget.
        var r = budget - exitMarginCap
        if let f = exitMarginFraction { r = max(r, budget / (1 + f)) }
        return r >= minimumRadius ? r : nil
    }
}
