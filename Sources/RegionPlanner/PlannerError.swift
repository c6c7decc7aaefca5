import Foundation

/// Everything the planner refuses, with what the caller needs to fix it.
public enum PlannerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A catalogue entry failed validation; `index` is its position in the input.
    case invalidEntry(index: Int, identifier: String, reason: String)
    /// Two catalogue entries share an identifier.
    case duplicateIdentifier(String, index: Int)
    /// Two sources' prefixes clash (one is a prefix of the other, or reuses the planner's own).
    case prefixClash(String, String)
    /// A configuration value is unusable.
    case invalidConfiguration(field: String, reason: String)
    /// The monitor refused a registration (slot limit, unsupported region, ...).
    case registrationFailed(identifier: String, reason: String)
    /// The tier loader failed for a parent; its children stay unloaded.
    case loaderFailed(parent: String, reason: String)
    /// A loaded child names another parent than the one it was loaded for.
    case childOfWrongParent(child: String, parent: String)
    /// ``RegionPlanner/start(at:)`` has not been called, or the planner is switched off.
    case notRunning

    public var description: String {
        switch self {
        case let .invalidEntry(i, id, reason): "catalogue entry \(i) ('\(id)'): \(reason)"
        case let .duplicateIdentifier(id, i): "catalogue entry \(i): identifier '\(id)' already used"
        case let .prefixClash(a, b): "source prefixes '\(a)' and '\(b)' clash: one starts with the other"
        case let .invalidConfiguration(field, reason): "configuration \(field): \(reason)"
        case let .registrationFailed(id, reason): "monitor refused '\(id)': \(reason)"
        case let .loaderFailed(parent, reason): "loading the children of '\(parent)' failed: \(reason)"
        case let .childOfWrongParent(child, parent): "loaded child '\(child)' does not name '\(parent)' as its parent"
        case .notRunning: "the planner is not running (call start(at:) or switch it on)"
        }
    }
}
