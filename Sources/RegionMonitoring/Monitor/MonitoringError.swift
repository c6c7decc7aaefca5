import Foundation

/// Errors opening or using a ``Monitor``.
public enum MonitoringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A monitor with this name is already open in this app (Core Location allows one).
    case monitorAlreadyOpen(name: String)
    /// Monitor names are letters, digits and underscores, not starting with an underscore
    /// (Apple's rule for `CLMonitor` names).
    case invalidName(String)
    /// The name is longer than the store can keep (`utf8Count` bytes, at most `limit`).
    case nameTooLong(name: String, utf8Count: Int, limit: Int)
    /// The stored state for `name` could not be read; nothing was changed. Remove it with
    /// ``MonitorStore/discard(name:)`` to start afresh.
    case storeCorrupt(name: String, path: String, reason: String)
    /// The monitor was closed; open a new one with the same name.
    case closed(name: String)

    public var description: String {
        switch self {
        case .monitorAlreadyOpen(let n): "a monitor named \"\(n)\" is already open"
        case .invalidName(let n):
            "invalid monitor name \"\(n)\": use letters, digits and underscores, not starting with an underscore"
        case .nameTooLong(let n, let count, let limit):
            "monitor name \"\(n.prefix(40))…\" is \(count) bytes long; the store keeps names of at most \(limit) bytes"
        case .storeCorrupt(let n, let p, let r): "stored state of monitor \"\(n)\" at \(p) is unreadable: \(r)"
        case .closed(let n): "monitor \"\(n)\" is closed"
        }
    }
}
