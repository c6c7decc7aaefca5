import Foundation
import Geofencing

/// Everything the planner refuses, with what the caller needs to fix it; failures of other
/// components keep their own error (`underlying`), not a string.
public enum PlannerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A catalogue entry failed validation; `index` is its position in the input.
    case invalidEntry(index: Int, identifier: String, underlying: GeofencingError)
    /// Two catalogue entries share an identifier.
    case duplicateIdentifier(String, index: Int)
    /// Two sources' prefixes clash (one is a prefix of the other, or reuses the planner's own).
    case prefixClash(String, String)
    /// A configuration value is unusable.
    case invalidConfiguration(field: String, reason: String)
    /// The monitor refused a registration (slot limit, unsupported region, ...).
    case registrationFailed(identifier: String, underlying: SlotMonitorError)
    /// The tier loader failed for a parent; its children stay unloaded.
    case loaderFailed(parent: String, underlying: UnderlyingError)
    /// A loaded child names another parent than the one it was loaded for.
    case childOfWrongParent(child: String, parent: String)
    /// A fix handed to ``RegionPlanner/observe(_:)`` or ``RegionPlanner/start(at:)`` is invalid.
    case invalidFix(GeofencingError)
    /// No source has this prefix.
    case unknownSource(String)
    /// The state store failed to load or save the planner's state.
    case storeFailed(UnderlyingError)
    /// ``RegionPlanner/start(at:)`` has not been called, or the planner is switched off.
    case notRunning

    public var description: String {
        switch self {
        case .invalidEntry(let i, let id, let underlying): "catalogue entry \(i) ('\(id)'): \(underlying)"
        case .duplicateIdentifier(let id, let i): "catalogue entry \(i): identifier '\(id)' already used"
        case .prefixClash(let a, let b): "source prefixes '\(a)' and '\(b)' clash: one starts with the other"
        case .invalidConfiguration(let field, let reason): "configuration \(field): \(reason)"
        case .registrationFailed(let id, let underlying): "monitor refused '\(id)': \(underlying)"
        case .loaderFailed(let parent, let underlying): "loading the children of '\(parent)' failed: \(underlying)"
        case .childOfWrongParent(let child, let parent):
            "loaded child '\(child)' does not name '\(parent)' as its parent"
        case .invalidFix(let underlying): "invalid fix: \(underlying)"
        case .unknownSource(let prefix): "no source has the prefix '\(prefix)'"
        case .storeFailed(let underlying): "planner state store: \(underlying)"
        case .notRunning: "the planner is not running (call start(at:) or switch it on)"
        }
    }
}

/// An error from code the planner calls but does not know (a tier loader, a state store),
/// kept whole: ``error`` is the original value. Two are equal when they print the same
/// (`String(reflecting:)`), which is all an error needs for comparison in tests and logs.
public struct UnderlyingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The original error.
    public let error: any Error & Sendable

    public init(_ error: any Error & Sendable) { self.error = error }

    public var description: String { "\(error)" }

    public static func == (a: Self, b: Self) -> Bool { String(reflecting: a.error) == String(reflecting: b.error) }
    public func hash(into h: inout Hasher) { h.combine(String(reflecting: error)) }
}
