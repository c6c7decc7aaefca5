import Foundation
import Geofencing

/// What a location source hands the device: a fix, or the passing of time on the track.
///
/// Ticks let the device confirm pending transitions between fixes
/// (`Engine.advance(subject:to:)`): a phone that stops reporting still gets its entry once
/// the confirmation time has run out.
public enum LocationUpdate: Sendable, Hashable {
    case fix(LocationFix)
    /// Track time has reached this date with no new fix.
    case tick(Date)

    /// The track time of the update.
    public var date: Date {
        switch self {
        case .fix(let f): f.timestamp
        case .tick(let d): d
        }
    }
}
