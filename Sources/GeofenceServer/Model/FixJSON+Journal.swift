import Foundation
import Geodesy
import Geofencing

extension FixJSON {
    /// The journal form of a fix batch: `{"device": D, "fixes": [{"la","lo","t","a","s","c"}]}`,
    /// with `t` in seconds since the reference date (exactly `Date`'s own value, so replay
    /// reproduces timestamps bit for bit).
    package static func journalJSON(device: String, fixes: [LocationFix]) -> ServerJSON {
        .object([
            "device": .string(device),
            "fixes": .array(
                fixes.map { f in
                    var o: [String: ServerJSON] = [
                        "la": .number(f.coordinate.latitude), "lo": .number(f.coordinate.longitude),
                        "t": .number(f.timestamp.timeIntervalSinceReferenceDate),
                    ]
                    if let a = f.horizontalAccuracy { o["a"] = .number(a) }
                    if let s = f.speed { o["s"] = .number(s) }
                    if let c = f.course { o["c"] = .number(c) }
                    return .object(o)
                }),
        ])
    }

    /// Reads ``journalJSON(device:fixes:)`` back; `nil` when it is not in that form.
    package static func fixes(journal: ServerJSON) -> [LocationFix]? {
        guard case .object(let o) = journal, case .string(let device)? = o["device"],
            case .array(let items)? = o["fixes"]
        else { return nil }
        var out: [LocationFix] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .object(let f) = item, case .number(let la)? = f["la"], case .number(let lo)? = f["lo"],
                case .number(let t)? = f["t"]
            else { return nil }
            func opt(_ k: String) -> Double? { if case .number(let v)? = f[k] { return v } else { return nil } }
            out.append(
                LocationFix(
                    subject: device, coordinate: Coordinate(uncheckedLatitude: la, longitude: lo),
                    horizontalAccuracy: opt("a"), timestamp: Date(timeIntervalSinceReferenceDate: t),
                    speed: opt("s"), course: opt("c")))
        }
        return out
    }
}
