import Foundation
import HTTPTypes
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/events/history`: the tenant's events newest first, filtered by device, region,
    /// kind and time range, paged by `before` (the previous page's `next`), as JSON, CSV or
    /// GeoJSON (`format`). Read from the store through its device and region indexes
    /// (``ServerStore/eventHistory(tenant:filter:before:limit:scan:)``), examining at most
    /// ``ServerConfiguration/historyScanEvents`` events a page; the live list of the
    /// dashboard stays on `/v1/events/stream`.
    func addHistoryRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store
        let config = self.configuration

        v1.get("events/history") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let filter = try EventFilter(request: request)
            let before = try request.uri.queryParameters.get("before").map { try parseCursor($0, field: "before") }
            let format = request.uri.queryParameters.get("format").map { String($0) } ?? "json"
            guard ["json", "csv", "geojson"].contains(format) else {
                throw Problem.badRequest(
                    field: "format", detail: "format must be json, csv or geojson, not \"\(format.prefix(40))\"")
            }
            let page = try await store.eventHistory(
                tenant: tenant, filter: filter, before: before, limit: limit, scan: config.historyScanEvents)
            let events = page.events
            var headers: HTTPFields = [:]
            if let next = page.next { headers[EventExport.nextHeader] = String(next) }
            switch format {
            case "csv":
                headers[.contentType] = "text/csv; charset=utf-8"
                return Response(
                    status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: EventExport.csv(events))))
            case "geojson":
                headers[.contentType] = "application/geo+json"
                return Response(
                    status: .ok, headers: headers,
                    body: .init(byteBuffer: ByteBuffer(data: EventExport.geoJSON(events).encoded())))
            default:
                headers[.contentType] = "application/json"
                let next: ServerJSON = page.next.map { .string(String($0)) } ?? .null
                let body = ServerJSON.object(["events": .array(events), "next": next]).encoded()
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
            }
        }
    }
}

extension EventFilter {
    /// The filter of a history request's query: `device`, `region` (identifiers), `kind`
    /// (`enter`, `exit`, `dwell`), `from` and `to` (RFC 3339, `from` ≤ `to`); 400 naming the
    /// parameter otherwise.
    init(request: Request) throws(Problem) {
        self.init()
        let query = request.uri.queryParameters
        device = try request.identifierQuery("device")
        region = try request.identifierQuery("region")
        if let k = query.get("kind") {
            guard ["enter", "exit", "dwell"].contains(k) else {
                throw Problem.badRequest(
                    field: "kind", detail: "kind must be enter, exit or dwell, not \"\(k.prefix(40))\"")
            }
            kind = String(k)
        }
        (from, to) = try EventFilter.range(request)
    }

    /// The `from` and `to` query parameters (RFC 3339), each `nil` when absent; a `to` before
    /// `from` is an empty range, not an error (a filter, like any other that matches nothing).
    static func range(_ request: Request) throws(Problem) -> (Date?, Date?) {
        (try time(request, "from"), try time(request, "to"))
    }

    /// An RFC 3339 time, clamped to 1970 … 9999 (nothing is stored outside: a bound beyond them
    /// selects what the nearer one would, and the stored text orders as the times do).
    private static func time(_ request: Request, _ name: String) throws(Problem) -> Date? {
        guard let s = request.uri.queryParameters.get(name) else { return nil }
        guard let d = QueryTime.parse(String(s)) else {
            throw Problem.badRequest(
                field: name, detail: "\(name) must be an RFC 3339 time (2026-11-27T10:00:00Z), not \"\(s.prefix(60))\"")
        }
        return Date(timeIntervalSince1970: min(max(d.timeIntervalSince1970, 0), 253_402_300_799))
    }
}

/// The history's other formats: CSV (RFC 4180) and a GeoJSON FeatureCollection of points.
enum EventExport {
    /// The response header that holds the next page's `before` in every format (absent on the
    /// last page): a CSV or GeoJSON page may hold no event to take a cursor from.
    static let nextHeader = HTTPField.Name("Geofence-Next")!

    static let columns = ["cursor", "time", "event", "device", "region", "latitude", "longitude", "crossedAt", "id"]

    /// One header line, then one line per event, CRLF-terminated. Text fields are quoted; one
    /// starting with `=`, `+`, `-` or `@` gets a leading `'` so a spreadsheet shows it rather
    /// than evaluating it (ids are free text).
    static func csv(_ events: [ServerJSON]) -> String {
        var out = columns.joined(separator: ",") + "\r\n"
        for e in events {
            let fields = columns.map { name -> String in
                switch e[name] {
                case .number(let n)?: return "\(n)"
                case .string(let s)?: return quoted(s, numeric: name == "cursor")
                case .bool(let b)?: return b ? "true" : "false"
                default: return ""
                }
            }
            out += fields.joined(separator: ",") + "\r\n"
        }
        return out
    }

    static func quoted(_ s: String, numeric: Bool) -> String {
        if numeric { return s }
        var text = s
        if let first = text.first, "=+-@".contains(first) { text = "'" + text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Each event as a Point feature at its fix, with every other field as a property.
    static func geoJSON(_ events: [ServerJSON]) -> ServerJSON {
        let features: [ServerJSON] = events.map { e in
            var properties: [String: ServerJSON] = [:]
            if case .object(let o) = e {
                for (k, v) in o where k != "latitude" && k != "longitude" { properties[k] = v }
            }
            return .object([
                "type": .string("Feature"),
                "geometry": .object([
                    "type": .string("Point"),
                    "coordinates": .array([e["longitude"] ?? .number(0), e["latitude"] ?? .number(0)]),
                ]),
                "properties": .object(properties),
            ])
        }
        return .object(["type": .string("FeatureCollection"), "features": .array(features)])
    }
}

/// RFC 3339 `date-time` text for query bounds, read by its grammar (section 5.6) into seconds
/// since 1970 on the proleptic Gregorian calendar: any year 0000–9999, any offset, a leap
/// second as the next second. Foundation's ISO 8601 reader refuses some of these (early years
/// with odd offsets) that the OpenAPI document's `format: date-time` allows.
enum QueryTime {
    static func parse(_ text: String) -> Date? {
        let pattern = /(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,20})?([Zz]|([+-])(\d{2}):(\d{2}))/
        guard let m = text.wholeMatch(of: pattern) else { return nil }
        let (year, month, day) = (Int(m.1)!, Int(m.2)!, Int(m.3)!)
        let (hour, minute, second) = (Int(m.4)!, Int(m.5)!, Int(m.6)!)
        guard (1...12).contains(month), (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var offset = 0
        if let sign = m.9, let h = m.10.flatMap({ Int($0) }), let mm = m.11.flatMap({ Int($0) }) {
            guard h < 24, mm < 60 else { return nil }
            offset = (h * 3_600 + mm * 60) * (sign == "-" ? -1 : 1)
        }
        let fraction = m.7.flatMap { Double("0" + $0) } ?? 0
        let seconds = daysSince1970(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    }

    /// Days from 1970-01-01 to the date (H. Hinnant's days_from_civil).
    private static func daysSince1970(_ y: Int, _ m: Int, _ d: Int) -> Int {
        let year = m <= 2 ? y - 1 : y
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
