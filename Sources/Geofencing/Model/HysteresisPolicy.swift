import Foundation

/// The rule that turns noisy fixes into confirmed transitions.
///
/// A fix *decides* for a region when it is usable (its accuracy is at most
/// ``maximumAccuracy`` and, if set, at most ``maximumAccuracyToSizeRatio`` × the region's
/// size) and lies past the boundary by at least the *margin*:
///
///     margin = max(minimumMarginMeters, marginMeters ?? accuracyMultiplier × accuracy)
///     margin = min(margin, maximumMarginFraction × regionSize)     // when the cap is set
///
/// (region size = radius for circles, √(area / π) for polygons). A transition is confirmed
/// when deciding fixes have kept the subject on the new side for ``confirmationTime``
/// seconds (fix timestamps) with at least ``minimumConfirmingFixes`` of them; any usable
/// fix that is not past the margin on the new side cancels the pending transition. A fix
/// without accuracy counts as ``assumedAccuracy``.
///
/// ```swift
/// var engine = Engine(policy: .precise)
/// var strict = HysteresisPolicy.coreLocation
/// strict.confirmationTime = 60
/// ```
///
/// Two presets; every number is documented with its source in docs/semantics.md.
public struct HysteresisPolicy: Sendable, Hashable, Codable {
    /// Fixed margin in metres; `nil` derives it from each fix's accuracy.
    public var marginMeters: Double?
    /// Margin per metre of reported accuracy when ``marginMeters`` is `nil`.
    public var accuracyMultiplier: Double
    /// The margin is never smaller than this (metres).
    public var minimumMarginMeters: Double
    /// Cap on the margin as a fraction of the region's size, so small regions can be
    /// entered at all; `nil` for no cap.
    public var maximumMarginFraction: Double?
    /// How long (seconds, on fix timestamps) the subject must stay past the margin.
    public var confirmationTime: TimeInterval
    /// How many deciding fixes a confirmation needs at least (a single glitch is one fix).
    public var minimumConfirmingFixes: Int
    /// A fix whose accuracy is worse than this (metres) decides nothing at all.
    public var maximumAccuracy: Double
    /// A fix whose accuracy exceeds this multiple of a region's size decides nothing for
    /// that region; `nil` to disable.
    public var maximumAccuracyToSizeRatio: Double?
    /// Accuracy assumed for fixes that carry none (metres).
    public var assumedAccuracy: Double

    public init(marginMeters: Double?, accuracyMultiplier: Double = 1,
                minimumMarginMeters: Double = 0, maximumMarginFraction: Double? = nil,
                confirmationTime: TimeInterval, minimumConfirmingFixes: Int = 2,
                maximumAccuracy: Double = 1_000, maximumAccuracyToSizeRatio: Double? = nil,
                assumedAccuracy: Double = 65) {
        self.marginMeters = marginMeters
        self.accuracyMultiplier = accuracyMultiplier
        self.minimumMarginMeters = minimumMarginMeters
        self.maximumMarginFraction = maximumMarginFraction
        self.confirmationTime = confirmationTime
        self.minimumConfirmingFixes = minimumConfirmingFixes
        self.maximumAccuracy = maximumAccuracy
        self.maximumAccuracyToSizeRatio = maximumAccuracyToSizeRatio
        self.assumedAccuracy = assumedAccuracy
    }

    /// Apple's documented behaviour: about 200 m past the boundary (capped at half the
    /// radius for small regions), held for 20 s; fixes worse than 1 km decide nothing.
    public static let coreLocation = HysteresisPolicy(
        marginMeters: 200, minimumMarginMeters: 0, maximumMarginFraction: 0.5,
        confirmationTime: 20, minimumConfirmingFixes: 2, maximumAccuracy: 1_000,
        maximumAccuracyToSizeRatio: nil, assumedAccuracy: 65)

    /// Accuracy-aware: margin = the fix's own accuracy (at least 5 m, at most half the
    /// region size), held for 8 s over at least 2 fixes; fixes worse than 1 km, or worse
    /// than the region's own size, decide nothing.
    public static let precise = HysteresisPolicy(
        marginMeters: nil, accuracyMultiplier: 1, minimumMarginMeters: 5,
        maximumMarginFraction: 0.5, confirmationTime: 8, minimumConfirmingFixes: 2,
        maximumAccuracy: 1_000, maximumAccuracyToSizeRatio: 1, assumedAccuracy: 65)

    /// The margin for a fix of `accuracy` metres against a region of `size` metres, or `nil`
    /// when the fix decides nothing for that region.
    @inlinable
    public func margin(accuracy: Double, regionSize size: Double) -> Double? {
        if let ratio = maximumAccuracyToSizeRatio, accuracy > ratio * size { return nil }
        var m = Swift.max(minimumMarginMeters, marginMeters ?? accuracyMultiplier * accuracy)
        if let cap = maximumMarginFraction { m = Swift.min(m, cap * size) }
        return m
    }

    /// ``margin(accuracy:regionSize:)`` for one fix, its per-fix part worked out once (the
    /// engine applies it to each region the fix is evaluated against).
    @inlinable
    func margins(accuracy: Double) -> FixMargins {
        FixMargins(accuracy: accuracy, upper: upperMargin(accuracy: accuracy),
                   ratio: maximumAccuracyToSizeRatio ?? .infinity, cap: maximumMarginFraction ?? .infinity)
    }

    /// The largest margin any region can get for a fix of `accuracy` metres.
    @inlinable
    func upperMargin(accuracy: Double) -> Double {
        Swift.max(minimumMarginMeters, marginMeters ?? accuracyMultiplier * accuracy)
    }
}

/// The margins of one fix (``HysteresisPolicy/margins(accuracy:)``): the same numbers as
/// ``HysteresisPolicy/margin(accuracy:regionSize:)``, with the fix's part computed once and the
/// absent limits as infinities.
@usableFromInline
struct FixMargins: Sendable {
    @usableFromInline let accuracy: Double
    @usableFromInline let upper: Double
    @usableFromInline let ratio: Double
    @usableFromInline let cap: Double

    @inlinable
    init(accuracy: Double, upper: Double, ratio: Double, cap: Double) {
        self.accuracy = accuracy
        self.upper = upper
        self.ratio = ratio
        self.cap = cap
    }

    /// The margin against a region of `size` metres (> 0), or `nil` when the fix decides
    /// nothing there.
    @inlinable @inline(__always)
    func margin(regionSize size: Double) -> Double? {
        if accuracy > ratio * size { return nil }
        return Swift.min(upper, cap * size)
    }
}
