import Foundation
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/events/history`: the tenant's events newest first, filtered by device, region,
    /// kind and time range, paged by `before` (the previous page's `next`), as JSON, CSV or
    /// GeoJSON (`format`). Read from the store through its device and region indexes
    /// (``ServerStore/eventHistory(tenant:filter:before:limit:)``); the live list of the
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
            let events = try await store.eventHistory(tenant: tenant, filter: filter, before: before, limit: limit)
            switch format {
            case "csv":
                return Response(
                    status: .ok, headers: [.contentType: "text/csv; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: EventExport.csv(events))))
            case "geojson":
                return Response(
                    status: .ok, headers: [.contentType: "application/geo+json"],
                    body: .init(byteBuffer: ByteBuffer(data: EventExport.geoJSON(events).encoded())))
            default:
                var next: ServerJSON = .null
                if events.count == limit, case .object(let last)? = events.last, let c = last["cursor"] { next = c }
                return .json(.object(["events": .array(events), "next": next]))
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
        if let d = query.get("device") { device = try Identifier.check(String(d), field: "device") }
        if let r = query.get("region") { region = try Identifier.check(String(r), field: "region") }
        if let k = query.get("kind") {
            guard ["enter", "exit", "dwell"].contains(k) else {
                throw Problem.badRequest(
                    field: "kind", detail: "kind must be enter, exit or dwell, not \"\(k.prefix(40))\"")
            }
            kind = String(k)
        }
        (from, to) = try EventFilter.range(request)
    }

    /// The `from` and `to` query parameters (RFC 3339, `from` ≤ `to`), each `nil` when absent.
    static func range(_ request: Request) throws(Problem) -> (Date?, Date?) {
        let from = try time(request, "from")
        let to = try time(request, "to")
        if let from, let to, from > to {
            throw Problem.badRequest(field: "to", detail: "to must not be before from")
        }
        return (from, to)
    }

    /// Times between 1970 and 9999 (four-digit years, so that their text orders as they do).
    private static func time(_ request: Request, _ name: String) throws(Problem) -> Date? {
        guard let s = request.uri.queryParameters.get(name) else { return nil }
        guard let d = FixJSON.parseRFC3339(String(s)), (0..<253_402_300_800).contains(d.timeIntervalSince1970) else {
            throw Problem.badRequest(
                field: name,
                detail:
                    "\(name) must be an RFC 3339 time between 1970 and 9999 (2026-11-27T10:00:00Z), not \"\(s.prefix(60))\""
            )
        }
        return d
    }
}

/// The history's other formats: CSV (RFC 4180) and a GeoJSON FeatureCollection of points.
enum EventExport {
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
