import Foundation
import GeofenceServer
import Testing

@Suite("Region properties over HTTP: tiers, triggers, sources")
struct RegionPropertyTests {
    @Test("parent, source and initialTrigger are stored, returned and survive a restart", arguments: StoreKind.allCases)
    func roundTrip(_ store: StoreKind) async throws {
        let extra = #","parent":"province-a","source":"gov","initialTrigger":["dwell","enter"],"dwell":30"#
        try await TestDatabase.with(store) { db in
            try await Harness.run(database: db.location) { h in
                let key = try await h.key("acme")
                let created = try await h.call(
                    .POST, "/v1/regions", key: key,
                    body: circleFeature("city-1", lat: 31, lon: 121, radius: 500, extra: extra))
                #expect(created.status == 201, "\(created)")
                let import_ =
                    #"{"type":"FeatureCollection","features":[\#(circleFeature("district-9", lat: 31, lon: 121, radius: 50, extra: #","parent":"city-1","initialTrigger":["exit"]"#))]}"#
                #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: import_).status == 200)
            }
            try await Harness.run(database: db.location) { h in
                let key = try await h.key("acme")
                let city = try await h.call(.GET, "/v1/regions/city-1", key: key)
                #expect(city["properties"]?["parent"]?.string == "province-a")
                #expect(city["properties"]?["source"]?.string == "gov")
                #expect(city["properties"]?["initialTrigger"] == .array([.string("enter"), .string("dwell")]))
                let district = try await h.call(.GET, "/v1/regions/district-9", key: key)
                #expect(district["properties"]?["parent"]?.string == "city-1")
                #expect(district["properties"]?["initialTrigger"] == .array([.string("exit")]))
            }
        }
    }

    @Test(
        "the stored initialTrigger acts: a device first seen inside gets an initial entry",
        arguments: StoreKind.allCases)
    func initialTriggerActs(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/plain", key: key, body: circleFeature("plain", lat: 31, lon: 121, radius: 500))
            _ = try await h.call(
                .PUT, "/v1/regions/eager", key: key,
                body: circleFeature("eager", lat: 31, lon: 121, radius: 400, extra: #","initialTrigger":["enter"]"#))
            let t = h.clock.date.timeIntervalSince1970
            let fixes = (0..<6).map { fixJSON(31, 121, t: t + Double($0) * 10) }.joined(separator: ",")
            let r = try await h.call(.POST, "/v1/devices/p/locations", key: key, body: "[\(fixes)]")
            #expect(r.status == 200, "\(r)")
            let events = r["events"]?.array ?? []
            #expect(events.map { $0["region"]?.string } == ["eager"], "\(r)")
            #expect(events.first?["event"]?.string == "enter")
        }
    }

    @Test(
        "bad tier and trigger properties are 400 problems naming the property and change nothing",
        arguments: StoreKind.allCases)
    func badValues(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let cases: [(String, String)] = [
                (#","initialTrigger":["arrive"]"#, "properties.initialTrigger"),
                (#","initialTrigger":"enter""#, "properties.initialTrigger"),
                (#","initialTrigger":["enter","enter"]"#, "properties.initialTrigger"),
                (#","parent":"r""#, "properties.parent"),
                (#","parent":"""#, "properties.parent"),
                (#","parent":"a\u0001b""#, "properties.parent"),
                (#","parent":12"#, "properties.parent"),
                (#","source":"a.b""#, "properties.source"),
                (#","source":"\#(String(repeating: "s", count: 40))""#, "properties.source"),
            ]
            for (extra, field) in cases {
                let r = try await h.call(
                    .PUT, "/v1/regions/r", key: key,
                    body: circleFeature("r", lat: 31, lon: 121, radius: 100, extra: extra))
                #expect(r.status == 400, "\(extra): \(r)")
                #expect(r["field"]?.string == field, "\(extra): \(r)")
                let bulk =
                    #"{"type":"FeatureCollection","features":[\#(circleFeature("r", lat: 31, lon: 121, radius: 100, extra: extra))]}"#
                let b = try await h.call(.POST, "/v1/regions/import", key: key, body: bulk)
                #expect(b.status == 400 && b["field"]?.string == "features[0].\(field)", "\(extra): \(b)")
            }
            #expect(try await h.call(.GET, "/v1/regions/r", key: key).status == 404)
        }
    }
}
