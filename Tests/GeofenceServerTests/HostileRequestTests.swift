import Foundation
import GeofenceServer
import Testing

/// What a hostile or careless client tried (issue 21), each pinned: ids in paths, control
/// characters, absurd timestamps, invalid geometry, and the contract's corner cases.
@Suite("Hostile requests")
struct HostileRequestTests {
    static let t0 = 1_800_000_000.0

    // MARK: Identifiers

    @Test(
        "a region id with a space, non-ASCII letters or a slash is read, listed and deleted through its percent-encoded path",
        arguments: StoreKind.allCases)
    func percentEncodedRegionIDs(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            for (id, path) in [
                ("my region", "my%20region"), ("café-東京", "caf%C3%A9-%E6%9D%B1%E4%BA%AC"), ("a/b", "a%2Fb"),
            ] {
                let put = try await h.call(
                    .PUT, "/v1/regions/\(path)", key: key,
                    body: circleFeature("ignored", lat: 31.2, lon: 121.5, radius: 100))
                #expect(put.status == 201, "\(put)")
                #expect(put["id"]?.string == id)
                let get = try await h.call(.GET, "/v1/regions/\(path)", key: key)
                #expect(get.status == 200, "\(get)")
                #expect(get["id"]?.string == id)
                #expect(try await h.call(.DELETE, "/v1/regions/\(path)", key: key).status == 204)
                #expect(try await h.call(.GET, "/v1/regions/\(path)", key: key).status == 404)
            }
        }
    }

    @Test(
        "a device id is stored decoded: a path-traversal-looking id is a plain name, and %00 is refused",
        arguments: StoreKind.allCases)
    func deviceIDsAreDecoded(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let post = try await h.call(
                .POST, "/v1/devices/..%2F..%2Fetc%2Fpasswd/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0))
            #expect(post.status == 200, "\(post)")
            let state = try await h.call(.GET, "/v1/devices/..%2F..%2Fetc%2Fpasswd/state", key: key)
            #expect(state["device"]?.string == "../../etc/passwd")
            for bad in ["a%00b", "line%0Abreak", "esc%1B", "%C2%85"] {
                let r = try await h.call(
                    .POST, "/v1/devices/\(bad)/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0))
                #expect(r.status == 400, "\(bad): \(r)")
                #expect(r["field"]?.string == "id")
            }
        }
    }

    @Test("a path segment with a malformed escape or bytes that are not UTF-8 is refused, naming the parameter")
    func malformedPathEscapes() throws {
        // (HTTP clients re-encode such paths before sending, so the rule is pinned here.)
        for raw in ["%C3%28", "%zz", "%", "%E6%9D", "%FF"] {
            #expect(throws: Problem.self, "\(raw)") { try Identifier.fromURL(Substring(raw), field: "id") }
        }
        #expect(try Identifier.fromURL("caf%C3%A9%2F%20x", field: "id") == "café/ x")
        #expect(try Identifier.fromURL("100%25", field: "id") == "100%")
    }

    @Test("ids with control characters, lone surrogates or more than 256 characters are refused in bodies and imports")
    func controlCharactersAndSurrogates() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            for id in [
                #"nul\u0000x"#, #"new\nline"#, #"esc\u001b[31m"#, #"c1\u0085"#, #"lone\ud800"#, #"low\udc00x"#,
                String(repeating: "é", count: 257),
            ] {
                let post = try await h.call(
                    .POST, "/v1/regions", key: key, body: circleFeature(id, lat: 31.2, lon: 121.5, radius: 100))
                #expect(post.status == 400, "\(id.prefix(20)): \(post)")
                let doc =
                    #"{"type":"FeatureCollection","features":[\#(circleFeature(id, lat: 31.2, lon: 121.5, radius: 100))]}"#
                let imp = try await h.call(.POST, "/v1/regions/import", key: key, body: doc)
                #expect(imp.status == 400, "\(id.prefix(20)): \(imp)")
            }
            // 256 characters of two bytes each: allowed (the limit counts characters, as JSON Schema does).
            let long = String(repeating: "é", count: 256)
            #expect(
                try await h.call(
                    .POST, "/v1/regions", key: key, body: circleFeature(long, lat: 31.2, lon: 121.5, radius: 100)
                ).status == 201)
            #expect(try await h.call(.GET, "/v1/regions", key: key)["regions"]?.array?.count == 1)
        }
    }

    // MARK: Timestamps

    @Test("a fix stamped 1e20 is refused and the device's real fixes still go through", arguments: StoreKind.allCases)
    func absurdTimestampIsRefused(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.fixTimeWindow = FixTimeWindow() }) { h in
            let key = try await h.key("acme")
            let absurd = try await h.call(
                .POST, "/v1/devices/d1/locations", key: key, body: fixJSON(31.2, 121.5, t: 1e20))
            #expect(absurd.status == 400, "\(absurd)")
            #expect(absurd["field"]?.string == "timestamp")
            for t in [0.0, 946_684_799, Self.t0 + 301] {
                let r = try await h.call(.POST, "/v1/devices/d1/locations", key: key, body: fixJSON(31.2, 121.5, t: t))
                #expect(r.status == 400, "t=\(t): \(r)")
            }
            #expect(
                try await h.call(
                    .POST, "/v1/devices/d1/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0 + 299)
                ).status == 200)
            #expect(
                try await h.call(.GET, "/v1/devices/d1/state", key: key)["lastFix"]?["timestamp"]?.string
                    == "2027-01-15T08:04:59Z")
        }
    }

    @Test("the allowed clock skew is the operator's: with 1 hour, a fix 30 minutes ahead is accepted")
    func configurableSkew() async throws {
        try await Harness.run(configure: { $0.fixTimeWindow.maximumSkew = .seconds(3_600) }) { h in
            let key = try await h.key("acme")
            #expect(
                try await h.call(
                    .POST, "/v1/devices/d1/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0 + 1_800)
                ).status == 200)
        }
    }

    // MARK: Geometry

    static let bowTie = #"[[121.50,31.20],[121.51,31.21],[121.51,31.20],[121.50,31.21],[121.50,31.20]]"#
    static let square = #"[[121.50,31.20],[121.51,31.20],[121.51,31.21],[121.50,31.21],[121.50,31.20]]"#

    @Test(
        "a self-intersecting ring, an unclosed ring and a hole outside its shell are refused and not stored",
        arguments: [
            ("self-intersecting", #"[\#(bowTie)]"#, "geometry.coordinates[0]"),
            (
                "unclosed", #"[[[121.50,31.20],[121.51,31.20],[121.51,31.21],[121.50,31.21]]]"#,
                "geometry.coordinates[0]"
            ),
            (
                "hole outside", #"[\#(square),[[121.60,31.20],[121.61,31.20],[121.61,31.21],[121.60,31.20]]]"#,
                "geometry.coordinates[1]"
            ),
            (
                "hole crossing the shell",
                #"[\#(square),[[121.505,31.205],[121.52,31.205],[121.505,31.209],[121.505,31.205]]]"#,
                "geometry.coordinates[1]"
            ),
        ])
    func invalidPolygons(_ name: String, _ coordinates: String, _ field: String) async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let body =
                #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":\#(coordinates)},"properties":{"id":"p"}}"#
            let r = try await h.call(.POST, "/v1/regions", key: key, body: body)
            #expect(r.status == 400, "\(name): \(r)")
            #expect(r["field"]?.string == field, "\(name): \(r)")
            let imp = try await h.call(
                .POST, "/v1/regions/import", key: key, body: #"{"type":"FeatureCollection","features":[\#(body)]}"#)
            #expect(imp.status == 400, "\(name): \(imp)")
            #expect(try await h.call(.GET, "/v1/regions/p", key: key).status == 404)
        }
    }

    // MARK: Contract corner cases

    @Test("the contract's corner cases: TRACE is 405, an empty batch and an empty or oversized cursor are 400")
    func contractCorners() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let trace = try await h.call(.TRACE, "/v1/regions", key: key)
            #expect(trace.status == 405, "\(trace)")
            #expect(trace.header("Allow") == "GET, POST")
            #expect(try await h.call(.PATCH, "/v1/regions/x", key: key).header("Allow") == "GET, PUT, DELETE")
            #expect(try await h.call(.GET, "/v1/no-such-route", key: key).status == 404)
            #expect(try await h.call(.POST, "/v1/devices/d/locations", key: key, body: "[]").status == 400)
            for after in ["", "9223372036854775808", "-1", "+5", "007", "1.5"] {
                let r = try await h.call(.GET, "/v1/events?after=\(after)", key: key)
                #expect(r.status == 400, "after=\(after): \(r)")
                #expect(r["field"]?.string == "after")
            }
            #expect(try await h.call(.GET, "/v1/events?after=9223372036854775807", key: key).status == 200)
            // A region POST needs an id; a Point needs a radius; coordinates must be in range.
            let noID =
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.2]},"properties":{"radius":10}}"#
            #expect(try await h.call(.POST, "/v1/regions", key: key, body: noID)["field"]?.string == "properties.id")
            let noRadius =
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.2]},"properties":{"id":"c"}}"#
            #expect(
                try await h.call(.POST, "/v1/regions", key: key, body: noRadius)["field"]?.string == "properties.radius"
            )
            let outOfRange =
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[181,31.2]},"properties":{"id":"c","radius":5}}"#
            #expect(try await h.call(.POST, "/v1/regions", key: key, body: outOfRange).status == 400)
            // dwell: null is documented as "no dwell".
            let nullDwell =
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.2]},"properties":{"id":"c","radius":5,"dwell":null}}"#
            #expect(try await h.call(.POST, "/v1/regions", key: key, body: nullDwell).status == 201)
        }
    }
}
