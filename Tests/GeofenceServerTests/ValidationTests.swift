import Foundation
import GeofenceServer
import Testing

/// Bad input gets a clear 4xx problem naming the field, and changes nothing.
@Suite("Rejected requests change nothing")
struct ValidationTests {
    static let t0 = 1_800_000_000.0

    /// A tenant with one region and a device that has reported one fix outside it.
    static func seed(_ h: Harness) async throws -> String {
        let key = try await h.key("acme")
        _ = try await h.call(
            .PUT, "/v1/regions/bund", key: key,
            body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
        let r = try await h.call(
            .POST, "/v1/devices/d1/locations", key: key, body: fixJSON(31.259394, 121.499781, t: t0))
        #expect(r.status == 200)
        return key
    }

    /// Everything a rejected request could have changed.
    static func snapshot(_ h: Harness, key: String) async throws -> [String] {
        [
            try await h.call(.GET, "/v1/devices/d1/state", key: key).text,
            try await h.call(.GET, "/v1/events", key: key).text,
            try await h.call(.GET, "/v1/regions", key: key).text,
        ]
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var body: String
        var status: Int
        var field: String?
        var testDescription: String { name }
    }

    static let inside = fixJSON(31.240394, 121.499781, t: t0 + 10)
    static let cases: [Case] = [
        Case(
            name: "malformed JSON", method: "POST", path: "/v1/devices/d1/locations", body: #"{"latitude": 31.2,"#,
            status: 400, field: "body"),
        Case(
            name: "latitude as a string", method: "POST", path: "/v1/devices/d1/locations",
            body: #"{"latitude":"31.2","longitude":121.5,"timestamp":1800000010}"#, status: 400, field: "latitude"),
        Case(
            name: "latitude out of range in a batch", method: "POST", path: "/v1/devices/d1/locations",
            body: #"{"fixes":[\#(inside),\#(fixJSON(95, 121.5, t: t0 + 20))]}"#, status: 400, field: "fixes[1].latitude"
        ),
        Case(
            name: "longitude out of range", method: "POST", path: "/v1/devices/d1/locations",
            body: fixJSON(31.2, 181, t: t0 + 10), status: 400, field: "longitude"),
        Case(
            name: "negative accuracy", method: "POST", path: "/v1/devices/d1/locations",
            body: fixJSON(31.24, 121.5, t: t0 + 10, accuracy: -3), status: 400, field: "horizontalAccuracy"),
        Case(
            name: "missing timestamp", method: "POST", path: "/v1/devices/d1/locations",
            body: #"[{"latitude":31.24,"longitude":121.5}]"#, status: 400, field: "[0].timestamp"),
        Case(
            name: "bad timestamp text", method: "POST", path: "/v1/devices/d1/locations",
            body: #"{"latitude":31.24,"longitude":121.5,"timestamp":"yesterday"}"#, status: 400, field: "timestamp"),
        Case(
            name: "fix older than the last accepted one", method: "POST", path: "/v1/devices/d1/locations",
            body: #"{"fixes":[\#(fixJSON(31.240394, 121.499781, t: t0 - 1))]}"#, status: 409,
            field: "fixes[0].timestamp"),
        Case(
            name: "single fix older than the last accepted one", method: "POST", path: "/v1/devices/d1/locations",
            body: fixJSON(31.240394, 121.499781, t: t0 - 60), status: 409, field: "timestamp"),
        Case(
            name: "batch out of time order", method: "POST", path: "/v1/devices/d1/locations",
            body: #"[\#(fixJSON(31.240394, 121.499781, t: t0 + 20)),\#(fixJSON(31.240394, 121.499781, t: t0 + 10))]"#,
            status: 409, field: "[1].timestamp"),
        Case(
            name: "empty batch", method: "POST", path: "/v1/devices/d1/locations", body: #"{"fixes":[]}"#, status: 400,
            field: "fixes"),
        Case(
            name: "fixes not an array", method: "POST", path: "/v1/devices/d1/locations", body: #"{"fixes":3}"#,
            status: 400, field: "fixes"),
        Case(
            name: "region with a string radius", method: "PUT", path: "/v1/regions/bund",
            body:
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.2]},"properties":{"radius":"big"}}"#,
            status: 400, field: "properties.radius"),
        Case(
            name: "region with a latitude out of range", method: "PUT", path: "/v1/regions/bund",
            body: circleFeature("bund", lat: 99, lon: 121, radius: 10), status: 400, field: "geometry.coordinates[1]"),
        Case(
            name: "region without geometry", method: "POST", path: "/v1/regions",
            body: #"{"type":"Feature","properties":{"id":"z"}}"#, status: 400, field: "geometry"),
        Case(
            name: "unsupported geometry", method: "PUT", path: "/v1/regions/bund",
            body: #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{}}"#,
            status: 400, field: "geometry.type"),
        Case(
            name: "polygon ring too short", method: "PUT", path: "/v1/regions/bund",
            body:
                #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[1,2],[3,4],[1,2]]]},"properties":{}}"#,
            status: 400, field: "geometry.coordinates[0]"),
        Case(
            name: "import that is not a FeatureCollection", method: "POST", path: "/v1/regions/import",
            body: #"{"type":"Feature"}"#, status: 400, field: "type"),
        Case(
            name: "webhook to a host off the allow-list", method: "POST", path: "/v1/webhooks",
            body: #"{"url":"http://example.com/hook"}"#, status: 422, field: "url"),
        Case(
            name: "webhook URL that is not http", method: "POST", path: "/v1/webhooks",
            body: #"{"url":"ftp://127.0.0.1/x"}"#, status: 400, field: "url"),
    ]

    @Test(
        "each bad request gets a 4xx problem naming the field and changes nothing", arguments: StoreKind.allCases, cases
    )
    func rejected(_ store: StoreKind, _ c: Case) async throws {
        try await Harness.run(store) { h in
            let key = try await Self.seed(h)
            let before = try await Self.snapshot(h, key: key)
            let r = try await h.call(.init(rawValue: c.method), c.path, key: key, body: c.body)
            #expect(r.status == c.status, "\(r)")
            #expect(r.header("Content-Type") == "application/problem+json")
            #expect(r["status"]?.number == Double(c.status))
            #expect(r["field"]?.string == c.field, "\(r)")
            #expect((r["detail"]?.string ?? "").isEmpty == false)
            #expect(try await Self.snapshot(h, key: key) == before)
            #expect(try await h.call(.GET, "/v1/webhooks", key: key)["webhooks"]?.array?.isEmpty == true)
        }
    }

    @Test("a batch over the size limit is 413 and changes nothing", arguments: StoreKind.allCases)
    func oversizedBatch(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.maxBatchSize = 100 }) { h in
            let key = try await Self.seed(h)
            let before = try await Self.snapshot(h, key: key)
            let fixes = (1...101).map { fixJSON(31.240394, 121.499781, t: Self.t0 + Double($0)) }
            let r = try await h.call(
                .POST, "/v1/devices/d1/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
            #expect(r.status == 413, "\(r)")
            #expect(r["detail"]?.string?.contains("at most 100") == true)
            #expect(try await Self.snapshot(h, key: key) == before)
        }
    }

    @Test("a body over the byte limit is 413 and changes nothing", arguments: StoreKind.allCases)
    func oversizedBody(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.maxBodyBytes = 4_096 }) { h in
            let key = try await Self.seed(h)
            let before = try await Self.snapshot(h, key: key)
            let fixes = (1...200).map { fixJSON(31.240394, 121.499781, t: Self.t0 + Double($0)) }
            let r = try await h.call(
                .POST, "/v1/devices/d1/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
            #expect(r.status == 413, "\(r)")
            #expect(r["field"]?.string == "body")
            #expect(try await Self.snapshot(h, key: key) == before)
        }
    }

    @Test("a missing or unknown key is 401 on every route but /health", arguments: StoreKind.allCases)
    func authentication(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            _ = try await h.key("acme")
            #expect(try await h.call(.GET, "/health", key: nil).status == 200)
            for (m, p) in [
                ("GET", "/v1/regions"), ("GET", "/v1/events"), ("GET", "/v1/openapi.json"), ("GET", "/metrics"),
                ("POST", "/v1/devices/x/locations"), ("GET", "/v1/webhooks"),
            ] {
                #expect(try await h.call(.init(rawValue: m), p, key: nil).status == 401, "\(m) \(p)")
                #expect(try await h.call(.init(rawValue: m), p, key: "gfk_wrong").status == 401, "\(m) \(p)")
            }
        }
    }
}
