import Foundation
import Testing

@testable import GeofenceServer

/// Identifiers are normalized to Unicode NFC where they enter (``Identifier``): two spellings
/// that Unicode calls canonically equivalent are one device, region, tenant or key binding,
/// on both stores, whichever way each request spells them.
@Suite("Identifiers in Unicode NFC")
struct IdentifierNormalizationTests {
    /// `é` as one scalar and as `e` + COMBINING ACUTE ACCENT, percent-encoded for a URL.
    static let precomposed = "%C3%A9"
    static let decomposed = "e%CC%81"
    static let nfc = "\u{E9}"

    static func scalars(_ s: String?) -> [UInt32] { s?.unicodeScalars.map(\.value) ?? [] }

    // MARK: The rule

    @Test("every scalar below U+0300 is NFC on its own, so the byte test may let it through")
    func fastPathIsExact() {
        for v in 0..<0x300 {
            let s = String(Unicode.Scalar(UInt32(v))!)
            #expect(Identifier.isNFCWithoutLookup(s))
            #expect(Self.scalars(s.precomposedStringWithCanonicalMapping) == [UInt32(v)], "U+\(v)")
            // Nor does it compose with what precedes it.
            #expect(Self.scalars(("a" + s).precomposedStringWithCanonicalMapping) == [0x61, UInt32(v)])
        }
        #expect(!Identifier.isNFCWithoutLookup("e\u{301}"))
        #expect(!Identifier.isNFCWithoutLookup("\u{212B}")) // ANGSTROM SIGN, NFC U+00C5
    }

    @Test("normalization composes, replaces singletons and expands composition exclusions")
    func normalizes() throws {
        #expect(Self.scalars(Identifier.normalized("e\u{301}")) == [0xE9])
        #expect(Self.scalars(Identifier.normalized("\u{212B}")) == [0xC5])
        #expect(Self.scalars(Identifier.normalized("\u{FB2C}")) == [0x5E9, 0x5BC, 0x5C1])
        #expect(
            Self.scalars(try Identifier.check("van-\u{1E0A}\u{323}", field: "id")) == [
                0x76, 0x61, 0x6E, 0x2D, 0x1E0C, 0x307,
            ])
    }

    @Test("the length limit applies to the NFC spelling: longer before may fit, shorter before may not")
    func lengthAfterNormalization() throws {
        let max = Identifier.maximumLength
        // 2 × 256 scalars that compose into 256.
        let composing = String(repeating: "e\u{301}", count: max)
        #expect(try Identifier.check(composing, field: "id").unicodeScalars.count == max)
        #expect(throws: Problem.self) { try Identifier.check(composing + "e\u{301}", field: "id") }
        // 100 scalars that expand into 300.
        let expanding = String(repeating: "\u{FB2C}", count: 100)
        #expect(expanding.unicodeScalars.count < max)
        let problem = #expect(throws: Problem.self) { try Identifier.check(expanding, field: "id") }
        #expect(problem?.detail.contains("NFC") == true, "\(String(describing: problem))")
    }

    @Test("percent-escapes that are not UTF-8 (a lone surrogate among them) are refused, not replaced")
    func strictDecoding() throws {
        for raw in ["%FF", "%ED%A0%80", "%E9", "caf%C3", "e%CC"] {
            #expect(throws: Problem.self, "\(raw)") { try Identifier.fromURL(Substring(raw), field: "device") }
        }
        #expect(Self.scalars(try Identifier.fromURL("e%CC%81", field: "id")) == [0xE9])
        #expect(try Identifier.fromURL("=1+1", field: "id") == "=1+1")
    }

    // MARK: Through the server

    @Test(
        "é and e + U+0301 are one device: one engine state, one stored device, one history",
        arguments: StoreKind.allCases)
    func oneDeviceTwoSpellings(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            try await DashboardReadTests.importRegions(
                h, key: key, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            let entered = try await DashboardReadTests.visit(
                h, key: key, device: Self.precomposed, start: t0, inside: 6)
            #expect(entered.map { $0["event"]?.string } == ["enter"], "\(entered)")
            // The other spelling reports 2 km east of the yard: the same device leaves.
            let away = (0..<6).map { fixJSON(31, 121.02, t: t0 + 500 + Double($0) * 10) }.joined(separator: ",")
            let r = try await h.call(.POST, "/v1/devices/\(Self.decomposed)/locations", key: key, body: "[\(away)]")
            #expect(r.status == 200, "\(r)")
            #expect(r["events"]?.array?.map { $0["event"]?.string } == ["exit"], "\(r)")
            #expect(r["events"]?.array?.first.map { Self.scalars($0["device"]?.string) } == [0xE9])
            let rows = try await h.call(.GET, "/v1/devices", key: key)["devices"]?.array ?? []
            #expect(rows.count == 1 && Self.scalars(rows.first?["id"]?.string) == [0xE9], "\(rows)")
            #expect(rows.first?["inside"] == .array([]), "\(rows)")
            // Every read answers the same for either spelling, in path and query alike.
            for read in ["/v1/events/history?device=%@", "/v1/devices/%@/track", "/v1/devices/%@/state"] {
                let a = try await h.call(.GET, read.replacingOccurrences(of: "%@", with: Self.precomposed), key: key)
                let b = try await h.call(.GET, read.replacingOccurrences(of: "%@", with: Self.decomposed), key: key)
                #expect(a.status == 200 && a.text == b.text, "\(read): \(a) vs \(b)")
            }
            let history = try await h.call(.GET, "/v1/events/history?device=\(Self.decomposed)", key: key)
            #expect(history["events"]?.array?.count == 2, "\(history)")
            let track = try await h.call(.GET, "/v1/devices/\(Self.decomposed)/track", key: key)
            #expect(track["fixes"]?.array?.count == 16, "\(track)")
        }
    }

    @Test("region ids: a body in one spelling, the path and the query in the other", arguments: StoreKind.allCases)
    func regionSpellings(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            // Decomposed in the body, with a decomposed parent of a precomposed parent region.
            try await DashboardReadTests.importRegions(
                h, key: key,
                [
                    circleFeature("caf\u{E9}-town", lat: 31, lon: 121, radius: 1_000),
                    circleFeature(
                        "cafe\u{301}", lat: 31, lon: 121, radius: 300, extra: #","parent":"cafe\u0301-town""#),
                ])
            let got = try await h.call(.GET, "/v1/regions/caf\(Self.precomposed)", key: key)
            #expect(got.status == 200, "\(got)")
            #expect(Self.scalars(got["properties"]?["id"]?.string) == Self.scalars("caf\u{E9}"), "\(got)")
            #expect(Self.scalars(got["properties"]?["parent"]?.string) == Self.scalars("caf\u{E9}-town"), "\(got)")
            // A PUT in the other spelling replaces the same region.
            let put = try await h.call(
                .PUT, "/v1/regions/cafe%CC%81", key: key, body: circleFeature("ignored", lat: 31, lon: 121, radius: 250)
            )
            #expect(put.status == 200, "\(put)")
            let list = try await h.call(.GET, "/v1/regions", key: key)["regions"]?.array ?? []
            #expect(list.count == 2, "\(list)")
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            let events = try await DashboardReadTests.visit(h, key: key, device: "van-1", start: t0, inside: 6)
            let regions = Set(events.compactMap { $0["region"]?.string.map(Self.scalars) })
            #expect(regions.contains(Self.scalars("caf\u{E9}")), "\(events)")
            for spelling in [Self.precomposed, Self.decomposed] {
                let inside = try await h.call(.GET, "/v1/devices?inside=caf\(spelling)", key: key)
                #expect(inside["devices"]?.array?.count == 1, "\(spelling): \(inside)")
                let history = try await h.call(.GET, "/v1/events/history?region=caf\(spelling)", key: key)
                #expect(history["events"]?.array?.count == 1, "\(spelling): \(history)")
                let state = try await h.call(.GET, "/v1/devices/van-1/state?regions=caf\(spelling)", key: key)
                guard case .object(let asked)? = state["regions"] else {
                    Issue.record("\(spelling): \(state)")
                    continue
                }
                #expect(asked.keys.map(Self.scalars) == [Self.scalars("caf\u{E9}")], "\(spelling): \(state)")
                #expect(asked.values.first == .string("inside"), "\(spelling): \(state)")
            }
            let deleted = try await h.call(.DELETE, "/v1/regions/caf\(Self.decomposed)", key: key)
            #expect(deleted.status == 204, "\(deleted)")
            #expect(try await h.call(.GET, "/v1/regions/caf\(Self.precomposed)", key: key).status == 404)
        }
    }

    @Test(
        "keys: tenant and binding in one spelling serve requests in the other; a prefix e does not cover é",
        arguments: StoreKind.allCases)
    func keySpellings(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let admin = try await h.server.createAPIKey(tenant: "\u{E9}cole")
            let other = try await h.server.createAPIKey(tenant: "e\u{301}cole")
            try await DashboardReadTests.importRegions(
                h, key: admin, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            // One tenant: the second key sees the first key's region.
            #expect(try await h.call(.GET, "/v1/regions/yard", key: other).status == 200)
            let me = try await h.call(.GET, "/v1/key", key: other)
            #expect(Self.scalars(me["tenant"]?.string) == Self.scalars("\u{E9}cole"), "\(me)")
            let t = h.clock.date.timeIntervalSince1970 - 60
            func report(_ device: String, _ key: String) async throws -> Int {
                try await h.call(
                    .POST, "/v1/devices/\(device)/locations", key: key, body: "[\(fixJSON(31, 121, t: t))]"
                )
                .status
            }
            let bound = try await h.server.createAPIKey(
                tenant: "\u{E9}cole", scope: .ingest(devices: .device("e\u{301}1")))
            #expect(try await report("\(Self.precomposed)1", bound) == 200)
            #expect(try await report("\(Self.decomposed)1", bound) == 200)
            #expect(try await report("e1", bound) == 403)
            let plainE = try await h.server.createAPIKey(tenant: "\u{E9}cole", scope: .ingest(devices: .prefix("e")))
            #expect(try await report("e2", plainE) == 200)
            #expect(try await report("\(Self.decomposed)2", plainE) == 403, "e + U+0301 is é, which e does not prefix")
            let accented = try await h.server.createAPIKey(
                tenant: "\u{E9}cole", scope: .ingest(devices: .prefix("e\u{301}")))
            #expect(try await report("\(Self.precomposed)3", accented) == 200)
            #expect(try await report("\(Self.decomposed)4", accented) == 200)
            #expect(try await report("e5", accented) == 403)
            // The device list's prefix follows the same rule.
            let all =
                try await h.call(.GET, "/v1/devices?prefix=\(Self.decomposed)", key: admin)["devices"]?.array ?? []
            #expect(
                Set(all.compactMap { $0["id"]?.string.map(Self.scalars) }) == [
                    [0xE9, 0x31], [0xE9, 0x33], [0xE9, 0x34],
                ])
            let plain = try await h.call(.GET, "/v1/devices?prefix=e", key: admin)["devices"]?.array ?? []
            #expect(plain.compactMap { $0["id"]?.string } == ["e2"], "\(plain)")
        }
    }

    @Test("the tracking apps' device names are normalized as the JSON API's", arguments: StoreKind.allCases)
    func appSpellings(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let tst = Int(h.clock.date.timeIntervalSince1970) - 60
            let owntracks = try await h.call(
                .POST, "/v1/ingest/owntracks?u=\(Self.decomposed)&d=phone", key: key,
                body: #"{"_type":"location","lat":31,"lon":121,"tst":\#(tst)}"#)
            #expect(owntracks.status == 200, "\(owntracks)")
            let osmand = try await h.call(
                .GET, "/v1/ingest/osmand?id=\(Self.precomposed)%2Fphone&lat=31&lon=121.001&timestamp=\(tst + 10)",
                key: key)
            #expect(osmand.status == 200, "\(osmand)")
            let rows = try await h.call(.GET, "/v1/devices", key: key)["devices"]?.array ?? []
            #expect(rows.map { Self.scalars($0["id"]?.string) } == [Self.scalars("\u{E9}/phone")], "\(rows)")
            let track = try await h.call(.GET, "/v1/devices/\(Self.decomposed)%2Fphone/track", key: key)
            #expect(track["fixes"]?.array?.count == 2, "\(track)")
        }
    }

    @Test("hostile spellings: bytes that are not UTF-8 and ids too long in NFC are a 400 naming the field")
    func hostileSpellings() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let t = h.clock.date.timeIntervalSince1970 - 60
            let body = "[\(fixJSON(31, 121, t: t))]"
            // Sent on a socket as written: HTTP clients decode a path to build their URL and
            // may send something else (AsyncHTTPClient sends `/` for `%FF`).
            for (method, path, field) in [
                ("GET", "/v1/devices/%FF/track", "id"), ("POST", "/v1/devices/%ED%A0%80/locations", "id"),
                ("GET", "/v1/events/history?device=%ED%A0%80", "device"), ("GET", "/v1/devices?prefix=%E9", "prefix"),
                ("GET", "/v1/devices?inside=caf%C3", "inside"), ("GET", "/v1/events/history?region=100%", "region"),
                ("GET", "/v1/devices/van-1/state?regions=a,%FF", "regions"),
                ("GET", "/v1/regions?after=%C0%80", "after"),
            ] {
                let answer = try await Self.raw(h, method, path, key: key, body: body)
                #expect(
                    answer.hasPrefix("HTTP/1.1 400") && answer.contains(#""field":"\#(field)""#), "\(path): \(answer)")
            }
            let max = Identifier.maximumLength
            let fits = String(repeating: Self.decomposed, count: max)
            #expect(try await h.call(.POST, "/v1/devices/\(fits)/locations", key: key, body: body).status == 200)
            let long = try await h.call(.POST, "/v1/devices/\(fits)\(Self.decomposed)/locations", key: key, body: body)
            #expect(long.status == 400 && long.text.contains("NFC"), "\(long)")
            let expands = String(repeating: "%EF%AC%AC", count: 100) // U+FB2C: 3 scalars in NFC
            let r = try await h.call(.POST, "/v1/devices/\(expands)/locations", key: key, body: body)
            #expect(r.status == 400 && r["field"]?.string == "id", "\(r)")
        }
    }

    /// Sends `method path` with `key` and `body` on a socket of its own, bytes as written, and
    /// reads the whole answer.
    static func raw(_ h: Harness, _ method: String, _ path: String, key: String, body: String) async throws -> String {
        let fd = try RequestBudgetTests.connectedSocket(h.port)
        defer { close(fd) }
        let request = Array(
            """
            \(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\n\
            Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
            """.utf8)
        let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        try #require(sent == request.count)
        return await ConnectionLimitTests.readToClose(fd)
    }
}
