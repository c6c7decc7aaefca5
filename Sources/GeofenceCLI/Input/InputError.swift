/// Errors reading the command's input files. Each names the file and, where it applies, the
/// line or feature at fault.
public enum InputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file could not be opened (missing, unreadable, a directory).
    case cannotOpen(path: String, reason: String)
    /// The file is in a known format but malformed as a whole (`position`: "line 3",
    /// "feature 2", …).
    case malformed(path: String, position: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .malformed(let path, let position, let reason): "\(path): \(position): \(reason)"
        }
    }
}
