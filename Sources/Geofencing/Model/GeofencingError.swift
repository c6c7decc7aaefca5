import Foundation

/// Errors raised by the geofencing module. Each names the offending region, subject or field,
/// so a caller can report it without guessing; a thrown error never changes engine state.
public enum GeofencingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A region failed validation: `field` is the property at fault
    /// (`identifier`, `radius`, `exterior`, `holes[2]`, `polygons[1].exterior`, `dwell`, …).
    case invalidRegion(identifier: String, field: String, reason: String)
    /// The same identifier appears twice in one bulk ``Engine/add(contentsOf:)``.
    case duplicateIdentifier(String)
    /// The engine cannot hold more regions (the limit is ``Engine/maximumRegionCount``).
    case tooManyRegions(limit: Int)
    /// A fix failed validation: `field` is `subject`, `latitude`, `longitude`, `timestamp`,
    /// `horizontalAccuracy`, `speed` or `course`.
    case invalidFix(subject: String, field: String, reason: String)
    /// A fix is older than the last fix accepted for its subject.
    case outOfOrderFix(subject: String, timestamp: Date, lastTimestamp: Date)

    public var description: String {
        switch self {
        case .invalidRegion(let id, let field, let reason):
            "region \"\(id)\": \(field) \(reason)"
        case .duplicateIdentifier(let id):
            "region identifier \"\(id)\" appears more than once"
        case .tooManyRegions(let limit):
            "too many regions (the engine holds at most \(limit))"
        case .invalidFix(let subject, let field, let reason):
            "fix for \"\(subject)\": \(field) \(reason)"
        case .outOfOrderFix(let subject, let t, let last):
            "fix for \"\(subject)\" at \(t.timeIntervalSince1970) is older than its last fix at \(last.timeIntervalSince1970)"
        }
    }
}
