import Foundation
import Testing

@testable import GeofenceServer

@Suite("Battery levels the tracking apps report, kept per device for the device list")
struct BatteryTests {
    static func battery(of device: String, _ h: Harness, key: String) async throws -> ServerJSON? {
        let page = try await h.call(.GET, "/v1/devices?limit=100", key: key)
        #expect(page.status == 200, "\(page)")
        let row = page["devices"]?.array?.first { $0["id"]?.string == device }
        #expect(row != nil, "\(device) is listed: \(page)")
        return row?["battery"]
    }

    @Test(
        "OsmAnd batt / battery, Traccar's JSON battery.level and OwnTracks batt: the latest level is listed",
        arguments: StoreKind.allCases)
    func levels(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let t = Int(h.clock.date.timeIntervalSince1970) - 600
            func osmand(_ query: String) async throws -> Reply {
                try await TrackingAppIngestTests.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=v&\(query)")
            }
            #expect(try await osmand("lat=52.5&lon=13.4&timestamp=\(t)").status == 200)
            #expect(try await Self.battery(of: "v", h, key: key) == nil, "no level reported yet")
            #expect(try await osmand("lat=52.5&lon=13.4&timestamp=\(t + 10)&batt=81").status == 200)
            var b = try await Self.battery(of: "v", h, key: key)
            #expect(b?["percent"]?.number == 81, "\(String(describing: b))")
            // Stamped with the report's time (never after its arrival).
            #expect(b?["time"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(t + 10))))
            // −1 (unknown) and 140 are acknowledged and not kept; a fix still counts.
            #expect(try await osmand("lat=52.5&lon=13.4&timestamp=\(t + 20)&batt=-1").status == 200)
            #expect(try await osmand("lat=52.5&lon=13.4&timestamp=\(t + 30)&batt=140").status == 200)
            #expect(try await Self.battery(of: "v", h, key: key)?["percent"]?.number == 81)
            // Not a number: a problem naming the parameter, nothing kept.
            let bad = try await osmand("lat=52.5&lon=13.4&timestamp=\(t + 40)&batt=full")
            #expect(bad.status == 400 && bad["field"]?.string == "batt", "\(bad)")
            // A heartbeat (no position) carries a level too, here as `battery`, an hour later.
            h.clock.advance(3_600)
            #expect(try await osmand("timestamp=\(t + 50)&battery=64.5").status == 200)
            b = try await Self.battery(of: "v", h, key: key)
            #expect(
                b?["percent"]?.number == 64.5
                    && b?["time"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(t + 50))))
            // Traccar Client's JSON: a fraction of 1, the last location's.
            let json = """
                {"device_id":"v","location":[
                  {"timestamp":"\(FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(t + 60))))","coords":{"latitude":52.5,"longitude":13.4},"battery":{"level":0.5}},
                  {"timestamp":"\(FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(t + 70))))","coords":{"latitude":52.5,"longitude":13.4},"battery":{"level":0.42,"is_charging":true}}]}
                """
            let traccar = try await TrackingAppIngestTests.send(h, .POST, "/v1/ingest/osmand?key=\(key)", body: json)
            #expect(traccar.status == 200, "\(traccar)")
            #expect(try await Self.battery(of: "v", h, key: key)?["percent"]?.number == 42)
            // OwnTracks.
            let owntracks = try await TrackingAppIngestTests.send(
                h, .POST, "/v1/ingest/owntracks",
                body: #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(t + 80),"batt":55}"#,
                headers: [TrackingAppIngestTests.basic("alice", key), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")])
            #expect(owntracks.status == 200, "\(owntracks)")
            #expect(try await Self.battery(of: "alice/phone", h, key: key)?["percent"]?.number == 55)
            #expect(try await Self.battery(of: "v", h, key: key)?["percent"]?.number == 42, "per device")
            // Another tenant sees none of it.
            #expect(try await h.call(.GET, "/v1/devices", key: try await h.key("other"))["devices"] == .array([]))
        }
    }

    @Test("an older report never replaces a newer level", arguments: StoreKind.allCases)
    func olderReportLoses(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            try await h.server.store.recordBattery(tenant: "acme", device: "v", percent: 30, at: 2_000)
            try await h.server.store.recordBattery(tenant: "acme", device: "v", percent: 90, at: 1_000)
            #expect(
                try await h.server.store.batteries(tenant: "acme", devices: ["v", "w"]) == [
                    "v": BatteryReport(percent: 30, time: 2_000)
                ])
            #expect(try await h.server.store.batteries(tenant: "other", devices: ["v"]).isEmpty)
        }
    }
}
