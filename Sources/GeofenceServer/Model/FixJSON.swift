import Foundation
import Geodesy
import Geofencing

/// Reads location fixes from request bodies.
///
/// A fix is `{"latitude": 31.24, "longitude": 121.5, "timestamp": "2026-11-23T09:00:00Z",
/// "horizontalAccuracy": 8, "speed": 1.2, "course": 90}`; `timestamp` is an RFC 3339 string
/// or Unix seconds; the last three are optional. A body is one fix, an array of fixes, or
/// `{"fixes": [...]}`.
package enum FixJSON {
    /// Parses a locations body for `device`; throws a ``Problem`` naming the first bad field,
    /// or 413 when the batch holds more than `maxBatch` fixes.
    package static func fixes(
        from body: ServerJSON, device: String, maxBatch: Int,
        window: ClosedRange<Date>
    ) throws(Problem) -> [LocationFix] {
        let items: [ServerJSON]
        let path: String
        switch body {
        case .array(let a):
            items = a
            path = ""
        case .object(let o) where o["fixes"] != nil:
            items = try JSONObjectReader(body, path: "").array("fixes")
            path = "fixes"
        case .object: return [try fix(from: body, path: "", device: device, window: window)]
        default:
            throw Problem.badRequest(
                field: "body",
                detail: "body must be a fix object, an array of fixes or {\"fixes\": [...]}, not \(body.typeName)")
        }
        guard !items.isEmpty else {
            throw Problem.badRequest(field: path.isEmpty ? "body" : path, detail: "the batch holds no fixes")
        }
        guard items.count <= maxBatch else {
            throw Problem.batchTooLarge(count: items.count, limit: maxBatch, field: path.isEmpty ? "body" : path)
        }
        var out: [LocationFix] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            out.append(try fix(from: item, path: "\(path)[\(i)]", device: device, window: window))
        }
        return out
    }

    static func fix(
        from value: ServerJSON, path: String, device: String, window: ClosedRange<Date>
    ) throws(Problem) -> LocationFix {
        let o = try JSONObjectReader(value, path: path)
        let lat = try o.number("latitude")
        guard (-90.0...90.0).contains(lat) else {
            throw Problem.badRequest(
                field: o.name("latitude"), detail: "\(o.name("latitude")) \(lat) is outside [-90, 90]")
        }
        let lon = try o.number("longitude")
        guard (-180.0...180.0).contains(lon) else {
            throw Problem.badRequest(
                field: o.name("longitude"), detail: "\(o.name("longitude")) \(lon) is outside [-180, 180]")
        }
        let timestamp = try time(o, "timestamp")
        guard window.contains(timestamp) else {
            throw Problem.badRequest(
                field: o.name("timestamp"),
                detail:
                    "\(o.name("timestamp")) \(describe(timestamp)) is outside the accepted window \(formatRFC3339(window.lowerBound)) … \(formatRFC3339(window.upperBound)) (the server's clock plus its allowed skew)"
            )
        }
        let fix = LocationFix(
            subject: device, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
            horizontalAccuracy: try o.optionalNumber("horizontalAccuracy"), timestamp: timestamp,
            speed: try o.optionalNumber("speed"), course: try o.optionalNumber("course"))
        do { try fix.validate() } catch {
            if case .invalidFix(_, let field, let reason) = error {
                throw Problem.badRequest(field: o.name(field), detail: "\(o.name(field)) \(reason)")
            }
            throw Problem.badRequest(field: path, detail: "\(error)")
        }
        return fix
    }

    static func time(_ o: JSONObjectReader, _ key: String) throws(Problem) -> Date {
        guard let v = o.fields[key] else {
            throw Problem.badRequest(field: o.name(key), detail: "\(o.name(key)) is required")
        }
        switch v {
        case .number(let s) where s.isFinite: return Date(timeIntervalSince1970: s)
        case .string(let s):
            if let d = parseRFC3339(s) { return d }
            throw Problem.badRequest(
                field: o.name(key), detail: "\(o.name(key)) \"\(s)\" is not an RFC 3339 time (2026-11-23T09:00:00Z)")
        default:
            throw Problem.badRequest(
                field: o.name(key),
                detail: "\(o.name(key)) must be an RFC 3339 string or Unix seconds, not \(v.typeName)")
        }
    }

    /// A time for an error message: RFC 3339 when it has four-digit years, else Unix seconds.
    static func describe(_ d: Date) -> String {
        let s = d.timeIntervalSince1970
        return (-62_135_596_800.0..<253_402_300_800.0).contains(s) ? formatRFC3339(d) : "\(s) (Unix seconds)"
    }

    package static func parseRFC3339(_ s: String) -> Date? {
        if let d = try? Date(s, strategy: .iso8601) { return d }
        return try? Date(s, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    package static func formatRFC3339(_ d: Date) -> String {
        d.formatted(
            Date.ISO8601FormatStyle(
                includingFractionalSeconds: d.timeIntervalSince1970.rounded() != d.timeIntervalSince1970))
    }

    /// Compact JSON of a fix, as stored in the journal and returned by the API.
    package static func json(_ f: LocationFix) -> ServerJSON {
        var o: [String: ServerJSON] = [
            "latitude": .number(f.coordinate.latitude), "longitude": .number(f.coordinate.longitude),
            "timestamp": .number(f.timestamp.timeIntervalSince1970),
        ]
        if let a = f.horizontalAccuracy { o["horizontalAccuracy"] = .number(a) }
        if let s = f.speed { o["speed"] = .number(s) }
        if let c = f.course { o["course"] = .number(c) }
        return .object(o)
    }
}

/// The times a fix may carry: not before ``earliest`` (default 2000-01-01T00:00:00Z — no
/// GNSS receiver in service reports earlier, and a zero or small number is a client bug) and
/// not more than ``maximumSkew`` after the server's clock (default 5 minutes: phones' clocks
/// are NTP-synchronised to well under a second, so more is a wrong clock or a unit error
/// such as milliseconds sent as seconds). A fix outside is refused with 400 naming it, so a
/// single absurd timestamp can never become a device's "last accepted" time and block its
/// real fixes.
public struct FixTimeWindow: Sendable, Hashable {
    /// The earliest accepted fix time.
    public var earliest: Date = Date(timeIntervalSince1970: 946_684_800)
    /// How far after the server's clock a fix may be.
    public var maximumSkew: Duration = .seconds(300)

    public init(earliest: Date = Date(timeIntervalSince1970: 946_684_800), maximumSkew: Duration = .seconds(300)) {
        self.earliest = earliest
        self.maximumSkew = maximumSkew
    }

    /// The accepted times when the server's clock reads `now`.
    public func range(now: Date) -> ClosedRange<Date> {
        let upper = now.addingTimeInterval(maximumSkew.seconds)
        return earliest...max(earliest, upper)
    }
}
