import Foundation

/// The numbers of the rule that turns noisy fixes into confirmed transitions
/// (``TransitionRule`` applies them; docs/semantics.md explains each value).
///
/// A fix *decides* for a region when it is usable and lies past the boundary by at least the
/// *margin*:
///
///     noise  = minimumMarginMeters + accuracyMultiplier × accuracy
///     margin = max(noise, min(marginMeters ?? 0, maximumMarginFraction × regionSize))
///
/// (region size = radius for circles, √(area / π) for polygons). A fix cannot decide "inside" a
/// region when its `noise` exceeds `maximumMarginFraction × regionSize` or its accuracy
/// exceeds ``maximumAccuracyToSizeRatio`` × the size (too coarse for a region that small); it
/// still decides "outside" when it lies its margin beyond the boundary. It decides nothing at
/// all when its accuracy exceeds ``maximumAccuracy``. The accuracy is the fix's own
/// (``assumedAccuracy`` when it has none), but never better than the subject's recent fixes'
/// (``judgesAccuracyByRecentFixes``). A transition is confirmed when deciding fixes have kept the
/// subject on the new side for ``confirmationTime`` seconds (fix timestamps) with at least
/// ``minimumConfirmingFixes`` of them — one fewer for every ``fixCountRelief`` seconds the
/// deciding fixes span, but never fewer than two; any usable fix that is not past the margin on
/// the new side cancels the pending transition.
///
/// ```swift
/// var engine = Engine(policy: .precise)
/// var strict = HysteresisPolicy.coreLocation
/// strict.confirmationTime = 60
/// ```
public struct HysteresisPolicy: Sendable, Hashable, Codable {
    /// A fixed margin in metres (capped at ``maximumMarginFraction`` × the region's size), or
    /// `nil` for the accuracy-derived margin alone.
    public var marginMeters: Double?
    /// Metres of margin per metre of (effective) accuracy, added to ``minimumMarginMeters``.
    public var accuracyMultiplier: Double
    /// The accuracy-derived margin's constant part: how far a subject may wander past a
    /// boundary without having crossed it (metres).
    public var minimumMarginMeters: Double
    /// Cap on the margin as a fraction of the region's size; a fix whose accuracy-derived
    /// margin exceeds it decides nothing for the region. `nil` for no cap.
    public var maximumMarginFraction: Double?
    /// How long (seconds, on fix timestamps) the subject must stay past the margin.
    public var confirmationTime: TimeInterval
    /// How many deciding fixes a confirmation needs at least (a glitch of fewer fixes never
    /// confirms).
    public var minimumConfirmingFixes: Int
    /// Sparse fixes: the deciding fixes needed drop by one for every this many seconds they
    /// span (from the first to the latest), down to two, so that a phone reporting once a
    /// minute is not held for three minutes. `nil`: always ``minimumConfirmingFixes``.
    public var fixCountRelief: TimeInterval?
    /// A fix whose accuracy is worse than this (metres) decides nothing at all.
    public var maximumAccuracy: Double
    /// A fix whose accuracy exceeds this multiple of a region's size decides nothing for
    /// that region; `nil` to disable.
    public var maximumAccuracyToSizeRatio: Double?
    /// Accuracy assumed for fixes that carry none (metres).
    public var assumedAccuracy: Double
    /// Whether a fix's accuracy counts as no better than the median claim of it and the
    /// subject's previous four usable fixes, so that a fix claiming ±3 m among ±45 m ones is
    /// not believed (while one ±400 m fix among ±8 m ones does not blind the next). `false`
    /// takes each fix's claim as it is.
    public var judgesAccuracyByRecentFixes: Bool

    public init(
        marginMeters: Double?, accuracyMultiplier: Double = 1,
        minimumMarginMeters: Double = 0, maximumMarginFraction: Double? = nil,
        confirmationTime: TimeInterval, minimumConfirmingFixes: Int = 2,
        fixCountRelief: TimeInterval? = nil, maximumAccuracy: Double = 1_000, maximumAccuracyToSizeRatio: Double? = nil,
        assumedAccuracy: Double = 65, judgesAccuracyByRecentFixes: Bool = false
    ) {
        self.marginMeters = marginMeters
        self.accuracyMultiplier = accuracyMultiplier
        self.minimumMarginMeters = minimumMarginMeters
        self.maximumMarginFraction = maximumMarginFraction
        self.confirmationTime = confirmationTime
        self.minimumConfirmingFixes = minimumConfirmingFixes
        self.fixCountRelief = fixCountRelief
        self.maximumAccuracy = maximumAccuracy
        self.maximumAccuracyToSizeRatio = maximumAccuracyToSizeRatio
        self.assumedAccuracy = assumedAccuracy
        self.judgesAccuracyByRecentFixes = judgesAccuracyByRecentFixes
    }

    /// Apple's documented behaviour: about 200 m past the boundary (capped at half the
    /// region's size), held for 20 s — and never less than the fix's noise margin
    /// (20 m + 2 × accuracy), so a coarse fix cannot put the subject inside a small region.
    /// Four deciding fixes, or three over 30 s, two over 60 s.
    public static let coreLocation = HysteresisPolicy(
        marginMeters: 200, accuracyMultiplier: 2, minimumMarginMeters: 20, maximumMarginFraction: 0.5,
        confirmationTime: 20, minimumConfirmingFixes: 4, fixCountRelief: 30, maximumAccuracy: 1_000,
        maximumAccuracyToSizeRatio: nil, assumedAccuracy: 65, judgesAccuracyByRecentFixes: true)

    /// Accuracy-aware: margin = 20 m + 2 × the fix's accuracy (no better than the recent
    /// fixes'), held for 8 s over at least 4 fixes (three over 30 s, two over 60 s); a fix cannot
    /// decide "inside" a region when that margin exceeds 80 % of the region's size, and decides
    /// nothing at all beyond ±1 km.
    public static let precise = HysteresisPolicy(
        marginMeters: nil, accuracyMultiplier: 2, minimumMarginMeters: 20,
        maximumMarginFraction: 0.8, confirmationTime: 8, minimumConfirmingFixes: 4, fixCountRelief: 30,
        maximumAccuracy: 1_000, maximumAccuracyToSizeRatio: 1, assumedAccuracy: 65,
        judgesAccuracyByRecentFixes: true)

    /// The margin for a fix of `accuracy` metres against a region of `size` metres, or `nil`
    /// when the fix is too coarse to decide "inside" that region (it still decides "outside"
    /// past ``exitMargin(accuracy:regionSize:)``).
    @inlinable
    public func margin(accuracy: Double, regionSize size: Double) -> Double? {
        let m = margins(accuracy: accuracy).margin(regionSize: size)
        return m.decidesInside ? m.meters : nil
    }

    /// How far outside a region of `size` metres a fix of `accuracy` metres must lie to decide
    /// "outside": the same margin, also for fixes too coarse to decide "inside".
    @inlinable
    public func exitMargin(accuracy: Double, regionSize size: Double) -> Double {
        margins(accuracy: accuracy).margin(regionSize: size).meters
    }

    /// The deciding fixes a pending transition needs when they span `span` seconds (first to
    /// latest): ``minimumConfirmingFixes``, one fewer per ``fixCountRelief`` seconds, at least two.
    @inlinable
    public func confirmingFixesNeeded(spanning span: TimeInterval) -> Int {
        Self.confirmingFixesNeeded(most: minimumConfirmingFixes, relief: fixCountRelief ?? 0, spanning: span)
    }

    /// ``confirmingFixesNeeded(spanning:)`` from its two numbers (`relief` 0: none), for the
    /// engine's rule, which keeps them rather than the whole policy.
    @inlinable @inline(__always)
    static func confirmingFixesNeeded(most: Int, relief: Double, spanning span: Double) -> Int {
        let most = max(1, most)
        guard relief > 0, span > 0 else { return most }
        let relieved = (span / relief).rounded(.down)
        guard relieved < Double(most) else { return min(2, most) }
        return max(min(2, most), most - Int(relieved))
    }

    /// The shortest time a transition takes to confirm with fixes `interval` seconds apart:
    /// ``confirmationTime``, or longer when the fixes it needs take longer to arrive.
    public func shortestConfirmation(fixInterval interval: TimeInterval) -> TimeInterval {
        guard interval > 0, interval.isFinite else { return confirmationTime }
        var fixes = 1
        while fixes < confirmingFixesNeeded(spanning: Double(fixes - 1) * interval) { fixes += 1 }
        return max(confirmationTime, Double(fixes - 1) * interval)
    }

    /// ``margin(accuracy:regionSize:)`` for one fix, its per-fix part worked out once (the
    /// engine applies it to each region the fix is evaluated against).
    @inlinable
    func margins(accuracy: Double) -> FixMargins {
        FixMargins(
            accuracy: accuracy, noise: minimumMarginMeters + accuracyMultiplier * accuracy,
            fixed: marginMeters ?? 0, ratio: maximumAccuracyToSizeRatio ?? .infinity,
            cap: maximumMarginFraction ?? .infinity)
    }

    /// An accuracy up to which every fix decides for a region of `size` metres (−1: none
    /// does), a hair below the exact limit so that rounding can never put a fix within it
    /// that ``margin(accuracy:regionSize:)`` refuses (the settled shortcut relies on it).
    func largestDecidingAccuracy(regionSize size: Double) -> Double {
        let ratio = (maximumAccuracyToSizeRatio ?? .infinity) * size
        let room = (maximumMarginFraction ?? .infinity) * size - minimumMarginMeters
        if room < 0 { return -1 }
        let limit = accuracyMultiplier > 0 ? Swift.min(ratio, room / accuracyMultiplier) : ratio
        return limit * (1 - 1e-9)
    }
}
