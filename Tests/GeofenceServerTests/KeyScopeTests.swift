import Foundation
import GeofenceServer
import NIOHTTP1
import Testing

@testable import GeofenceCLI

/// Key scopes (docs/server.md, "Keys and scopes"): an `ingest` key reports for its own devices
/// and gets 403 on every other operation of the OpenAPI document; a `read` key gets 403 on every
/// write; an `admin` key (and every key made before scopes) may do everything.
@Suite("API key scopes: admin, read, ingest")
struct KeyScopeTests {
    typealias Apps = TrackingAppIngestTests

    /// Every operation of the served OpenAPI document as (method, path template).
    static func operations(_ h: Harness, admin: String) async throws -> [(method: String, path: String)] {
        let document = try await h.call(.GET, "/v1/openapi.json", key: admin)
        guard case .object(let paths)? = document["paths"] else { return [] }
        var out: [(String, String)] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            guard case .object(let methods) = item else { continue }
            for method in ["get", "put", "post", "delete", "patch"] where methods[method] != nil {
                out.append((method.uppercased(), path))
            }
        }
        return out
    }

    static func send(
        _ h: Harness, _ method: String, _ path: String, key: String, body: String? = nil
    ) async throws
        -> Reply
    {
        try await h.call(HTTPMethod(rawValue: method), path, key: key, body: body ?? (method == "GET" ? nil : "{}"))
    }

    @Test("an ingest key reports for its own device and gets 403 on every other operation in the OpenAPI document")
    func ingestKeyWalk() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .ingest(devices: .device("phone-7")))
            let operations = try await Self.operations(h, admin: admin)
            #expect(
                operations.count >= 25, "the document's operations: \(operations.map { "\($0.method) \($0.path)" })")
            let reporting: Set<String> = [
                "POST /v1/devices/{id}/locations", "GET /v1/ingest/osmand", "POST /v1/ingest/osmand",
                "POST /v1/ingest/owntracks",
            ]
            for (method, template) in operations where template != "/health" {
                let path = template.replacingOccurrences(of: "{id}", with: "phone-7")
                    .replacingOccurrences(of: "{token}", with: String(repeating: "ab", count: 32))
                let r = try await Self.send(h, method, path, key: phone)
                if reporting.contains("\(method) \(template)") {
                    #expect(r.status != 403 && r.status != 401, "\(method) \(template): \(r)")
                } else {
                    #expect(r.status == 403, "\(method) \(template) with an ingest key: \(r)")
                }
            }
            let t = h.clock.date.timeIntervalSince1970
            // Its own device: reported.
            let own = try await h.call(
                .POST, "/v1/devices/phone-7/locations", key: phone, body: fixJSON(52.5, 13.4, t: t))
            #expect(own.status == 200, "\(own)")
            let osmand = try await Apps.send(
                h, .GET, "/v1/ingest/osmand?key=\(phone)&id=phone-7&lat=52.5&lon=13.4&timestamp=\(Int(t) + 1)")
            #expect(osmand.status == 200, "\(osmand)")
            // Another device: 403, nothing stored.
            let other = try await h.call(
                .POST, "/v1/devices/phone-8/locations", key: phone, body: fixJSON(52.5, 13.4, t: t))
            #expect(other.status == 403, "\(other)")
            let otherApp = try await Apps.send(
                h, .GET, "/v1/ingest/osmand?key=\(phone)&id=phone-8&lat=52.5&lon=13.4&timestamp=\(Int(t))")
            #expect(otherApp.status == 403, "\(otherApp)")
            #expect(try await h.call(.GET, "/v1/devices/phone-8/state", key: admin).status == 404)
            let state = try await h.call(.GET, "/v1/devices/phone-7/state", key: admin)
            #expect(state["lastFix"]?["timestamp"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: t + 1)))
            // /metrics (any key when no metricsToken) is not for phones either.
            #expect(try await h.call(.GET, "/metrics", key: phone).status == 403)
        }
    }

    @Test("an ingest key bound to a prefix reports for the ids under it (OwnTracks USER/DEVICE)")
    func ingestPrefix() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let alice = try await h.server.createAPIKey(tenant: "acme", scope: .ingest(devices: .prefix("alice/")))
            let fix = #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1800000000}"#
            let own = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks", body: fix,
                headers: [Apps.basic("alice", alice), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")])
            #expect(own.status == 200, "\(own)")
            let bob = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks", body: fix,
                headers: [Apps.basic("bob", alice), ("X-Limit-U", "bob"), ("X-Limit-D", "phone")])
            #expect(bob.status == 403, "\(bob)")
            // "alice" alone does not start with "alice/".
            let bare = try await h.call(.POST, "/v1/devices/alice/locations", key: alice, body: fixJSON(1, 2, t: 1.8e9))
            #expect(bare.status == 403, "\(bare)")
            #expect(try await h.call(.GET, "/v1/devices/alice%2Fphone/state", key: admin).status == 200)
            #expect(try await h.call(.GET, "/v1/devices/bob%2Fphone/state", key: admin).status == 404)
            let grant = try await h.call(.GET, "/v1/key", key: admin)
            #expect(grant["scope"]?.string == "admin", "\(grant)")
        }
    }

    @Test("a read key reads and gets 403 on every write in the OpenAPI document; nothing changes")
    func readKeyWalk() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let viewer = try await h.server.createAPIKey(tenant: "acme", scope: .read)
            let put = try await h.call(
                .PUT, "/v1/regions/plaza", key: admin, body: circleFeature("plaza", lat: 52.5, lon: 13.4, radius: 100))
            #expect(put.status == 201)
            var writes = 0
            for (method, template) in try await Self.operations(h, admin: admin) where method != "GET" {
                let path = template.replacingOccurrences(of: "{id}", with: "plaza")
                    .replacingOccurrences(of: "{token}", with: String(repeating: "ab", count: 32))
                let r = try await Self.send(h, method, path, key: viewer)
                #expect(r.status == 403, "\(method) \(template) with a read key: \(r)")
                writes += 1
            }
            #expect(writes >= 10)
            #expect(try await h.call(.GET, "/v1/regions/plaza", key: viewer).status == 200)
            #expect(try await h.call(.GET, "/v1/regions", key: viewer)["regions"]?.array?.count == 1)
            #expect(try await h.call(.GET, "/metrics", key: viewer).status == 200)
            let grant = try await h.call(.GET, "/v1/key", key: viewer)
            #expect(grant["scope"]?.string == "read" && grant["tenant"]?.string == "acme", "\(grant)")
            // The app routes take keys from URLs and Basic auth: a read key cannot report there either.
            let app = try await Apps.send(h, .GET, "/v1/ingest/osmand?key=\(viewer)&id=d&lat=1&lon=2")
            #expect(app.status == 403, "\(app)")
        }
    }

    @Test("create-key's options choose the scope; contradictory ones are refused")
    func createKeyOptions() throws {
        func scope(_ arguments: [String]) throws -> KeyScope? {
            try (ServeCommand.parseAsRoot(["create-key", "--tenant", "acme"] + arguments) as? ServeCommand.CreateKey)?
                .keyScope()
        }
        #expect(try scope([]) == .admin)
        #expect(try scope(["--scope", "read"]) == .read)
        #expect(try scope(["--scope", "ingest"]) == .ingest(devices: nil))
        #expect(try scope(["--scope", "ingest", "--device", "phone-7"]) == .ingest(devices: .device("phone-7")))
        #expect(try scope(["--scope", "ingest", "--device-prefix", "alice/"]) == .ingest(devices: .prefix("alice/")))
        for bad in [
            ["--scope", "write"], ["--device", "phone-7"], ["--scope", "read", "--device-prefix", "a"],
            ["--scope", "ingest", "--device", "a", "--device-prefix", "b"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") { try scope(bad) }
        }
    }

    @Test("the stored forms of scopes read back; anything else grants nothing")
    func storedForms() {
        let scopes: [KeyScope] = [
            .admin, .read, .ingest(devices: nil), .ingest(devices: .device("a/b:c")), .ingest(devices: .prefix("x:")),
        ]
        for scope in scopes { #expect(KeyScope(stored: scope.description) == scope, "\(scope)") }
        for text in ["", "Admin", "write", "ingest:", "ingest:device", "readonly"] {
            #expect(KeyScope(stored: text) == nil, "\(text)")
        }
    }
}
