import Foundation
import Geofencing

/// A fix read from a tracking app's protocol, in the server's JSON form (``FixJSON``), with the
/// names the app gave its fields, so that the one validation of ``FixJSON`` answers problems
/// that name the field as the client sent it (`tst`, not `timestamp`).
struct ProtocolFix {
    /// The fix as `{"latitude", "longitude", "timestamp", "horizontalAccuracy", "speed", "course"}`.
    let json: ServerJSON
    /// The server's field name → the protocol's.
    let fieldNames: [String: String]

    /// Every time a `Date` can hold: the window of a check that leaves the time to the caller.
    static let anyTime =
        Date(
            timeIntervalSince1970: -Double.greatestFiniteMagnitude)...Date(
            timeIntervalSince1970: Double.greatestFiniteMagnitude)

    /// The validated fix (its time within `window`, as for the JSON API), or the validation's
    /// problem in the protocol's words.
    func locationFix(device: String, window: ClosedRange<Date>) throws(Problem) -> LocationFix {
        do { return try FixJSON.fix(from: json, path: "", device: device, window: window) } catch {
            throw error.renamingField(fieldNames)
        }
    }
}

extension Problem {
    /// The same problem with its field (and the detail's leading field name) renamed by
    /// `names`; unchanged when the field is not in `names`.
    func renamingField(_ names: [String: String]) -> Problem {
        guard let field, let renamed = names[field] else { return self }
        var problem = self
        problem.field = renamed
        if detail.hasPrefix(field) { problem.detail = renamed + detail.dropFirst(field.count) }
        return problem
    }
}
