import Foundation

/// A confirmed change of a subject's relation to a region.
///
/// `time` is when the engine confirmed it (the confirming fix's timestamp, or the moment the
/// confirmation time ran out in ``Engine/advance(subject:to:)``); `crossedAt` is the engine's
/// estimate of when the boundary was actually crossed, interpolated between the last fix on
/// the old side and the first on the new side. Both come from fix timestamps, never from a
/// clock, so a late delivery does not move them.
public struct TransitionEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The subject is now inside (after being outside, or initially when asked).
        case enter
        /// The subject is now outside (after being inside, or initially when asked).
        case exit
        /// The subject has stayed inside for the region's dwell time.
        case dwell

        /// Rank among events at the same time: exits, then entries, then dwells.
        var timeOrder: Int {
            switch self {
            case .exit: 0
            case .enter: 1
            case .dwell: 2
            }
        }
    }

    public var kind: Kind
    public var regionID: String
    public var subject: String
    /// The last fix the engine had when it confirmed the event.
    public var fix: LocationFix
    /// Confirmation time.
    public var time: Date
    /// Estimated boundary crossing time (for `dwell`: when the subject entered).
    public var crossedAt: Date
    /// True when the event reports the initial state (an ``InitialTrigger``), not a crossing.
    public var isInitial: Bool

    public init(
        kind: Kind, regionID: String, subject: String, fix: LocationFix,
        time: Date, crossedAt: Date, isInitial: Bool = false
    ) {
        self.kind = kind
        self.regionID = regionID
        self.subject = subject
        self.fix = fix
        self.time = time
        self.crossedAt = crossedAt
        self.isInitial = isInitial
    }
}
