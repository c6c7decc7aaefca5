import Foundation
import Testing

@testable import GeofenceServer

/// The OpenAPI document lists every status each route answers, for every scope of key: a
/// client generated from it (and the contract fuzzer, scripts/contract-fuzz.sh, run with each
/// scope) meets no status it was not told about.
@Suite("OpenAPI: every status each route answers for each scope is in its responses")
struct OpenAPIScopeTests {
    typealias Scopes = KeyScopeTests

    /// Each operation's listed statuses, "METHOD /template" → ["200", "400", …].
    static func listedStatuses(_ h: Harness, admin: String) async throws -> [String: Set<String>] {
        let document = try await h.call(.GET, "/v1/openapi.json", key: admin)
        guard case .object(let paths)? = document["paths"] else { return [:] }
        var out: [String: Set<String>] = [:]
        for (path, item) in paths {
            guard case .object(let methods) = item else { continue }
            for (method, operation) in methods {
                guard case .object(let responses)? = operation["responses"] else { continue }
                out["\(method.uppercased()) \(path)"] = Set(responses.keys)
            }
        }
        return out
    }

    @Test("admin, read, ingest and device keys, bound or not, own device or another: every answer is listed")
    func everyScopeEveryOperation() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let put = try await h.call(
                .PUT, "/v1/regions/phone-7", key: admin,
                body: circleFeature("phone-7", lat: 52.5, lon: 13.4, radius: 100))
            #expect(put.status == 201)
            let keys: [(String, KeyScope?)] = [
                ("admin", nil), ("read", .read), ("ingest", .ingest(devices: nil)),
                ("ingest bound", .ingest(devices: .device("phone-7"))),
                ("device", .device(devices: .device("phone-7"))),
                ("device prefix", .device(devices: .prefix("phone-"))),
                ("device elsewhere", .device(devices: .device("x"))),
            ]
            let listed = try await Self.listedStatuses(h, admin: admin)
            let operations = try await Scopes.operations(h, admin: admin)
            #expect(operations.count >= 25)
            var answers = 0
            for (name, scope) in keys {
                var key = admin
                if let scope { key = try await h.server.createAPIKey(tenant: "acme", scope: scope) }
                for (method, template) in operations {
                    // The event stream stays open for a key that may read it (EventStreamTests).
                    if template == "/v1/events/stream", scope == nil || scope == .read { continue }
                    for id in ["phone-7", "phone-8"] {
                        let path = template.replacingOccurrences(of: "{id}", with: id)
                        let reply = try await Scopes.send(h, method, path, key: key)
                        answers += 1
                        let statuses = listed["\(method) \(template)"] ?? []
                        #expect(
                            statuses.contains(String(reply.status)),
                            "\(method) \(template) (id \(id)) with a \(name) key answered \(reply.status), listed: \(statuses.sorted())"
                        )
                    }
                }
            }
            #expect(answers > 300)
        }
    }

    /// The `bbox` parameter's pattern, as the document states it.
    static func bboxPattern(_ h: Harness, admin: String) async throws -> String? {
        let document = try await h.call(.GET, "/v1/openapi.json", key: admin)
        let parameters = document["paths"]?["/v1/regions/map"]?["get"]?["parameters"]?.array ?? []
        return parameters.first { $0["name"]?.string == "bbox" }?["schema"]?["pattern"]?.string
    }

    @Test("bbox's pattern says four numbers: it refuses what is not, and every box the server reads matches it")
    func bboxPatternIsFourNumbers() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let pattern = try #require(try await Self.bboxPattern(h, admin: admin))
            let regex = try NSRegularExpression(pattern: pattern)
            func matches(_ text: String) -> Bool {
                regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
            for bad in [
                "a,b,c,d", "1,2,3", "1,2,3,4,5", "1,,3,4", "0x1,2,3,4", "1,2,3,inf", "1,2,3,NaN", "1e,2,3,4", "-,2,3,4",
            ] {
                #expect(!matches(bad), "\(bad)")
            }
            for box in [
                "1,2,3,4", "-180,-90,180,90", "13.3,52.4,13.5,52.6", "170,-10,-170,10", ".5,1.,+2,3e0", " 1, 2 ,3,4",
                "1E1,2,3,4", "-0.0,-0,0,0",
            ] {
                #expect(matches(box), "\(box)")
                let encoded = box.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                for route in ["/v1/regions/map?zoom=3&bbox=", "/v1/regions?bbox="] {
                    let r = try await h.call(.GET, route + encoded, key: admin)
                    #expect(r.status == 200, "\(route)\(box): \(r)")
                }
            }
            // What the pattern refuses, the server refuses.
            for bad in ["a,b,c,d", "1,2,3", "0x1,2,3,4", "1,2,3,inf"] {
                let encoded = bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                #expect(
                    try await h.call(.GET, "/v1/regions/map?zoom=3&bbox=" + encoded, key: admin).status == 400, "\(bad)"
                )
            }
        }
    }
}
