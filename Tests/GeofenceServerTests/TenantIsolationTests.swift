import Foundation
import GeofenceServer
import Testing

/// One tenant can never read or change another's regions, devices, events or webhooks.
@Suite("Tenant isolation")
struct TenantIsolationTests {
    @Test(
        "every route tried with the other tenant's key sees nothing and changes nothing", arguments: StoreKind.allCases)
    func everyRoute(_ store: StoreKind) async throws {
        try await Receiver.run { receiver in
            try await Harness.run(store) { h in
                let a = try await h.key("tenant-a")
                let b = try await h.key("tenant-b")
                // Tenant A: a webhook, a region, a device inside it with an event.
                let hook = try await h.call(.POST, "/v1/webhooks", key: a, body: #"{"url":"\#(receiver.url)"}"#)
                let hookID = try #require(hook["id"]?.string)
                _ = try await h.call(
                    .PUT, "/v1/regions/bund", key: a,
                    body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
                _ = try await h.call(
                    .POST, "/v1/devices/d1/locations", key: a, body: fixJSON(31.259394, 121.499781, t: 1_800_000_000))
                let fixes = (1...4).map { fixJSON(31.240394, 121.499781, t: 1_800_000_000 + 10 * Double($0)) }.joined(
                    separator: ",")
                let ev = try await h.call(.POST, "/v1/devices/d1/locations", key: a, body: "[\(fixes)]")
                #expect(ev["events"]?.array?.count == 1)

                func snapshotA() async throws -> [String] {
                    [
                        try await h.call(.GET, "/v1/regions", key: a).text,
                        try await h.call(.GET, "/v1/regions/bund", key: a).text,
                        try await h.call(.GET, "/v1/devices/d1/state", key: a).text,
                        try await h.call(.GET, "/v1/events", key: a).text,
                        try await h.call(.GET, "/v1/webhooks", key: a).text,
                    ]
                }
                let before = try await snapshotA()

                // Reads with B's key.
                #expect(try await h.call(.GET, "/v1/regions/bund", key: b).status == 404)
                #expect(try await h.call(.GET, "/v1/regions", key: b)["regions"]?.array?.isEmpty == true)
                #expect(
                    try await h.call(.GET, "/v1/regions/nearby?lat=31.24&lon=121.5", key: b)["regions"]?.array?.isEmpty
                        == true)
                #expect(try await h.call(.GET, "/v1/devices/d1/state", key: b).status == 404)
                #expect(try await h.call(.GET, "/v1/events", key: b)["events"]?.array?.isEmpty == true)
                #expect(try await h.call(.GET, "/v1/webhooks", key: b)["webhooks"]?.array?.isEmpty == true)
                #expect(try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: b).status == 404)
                // Writes with B's key.
                #expect(try await h.call(.DELETE, "/v1/regions/bund", key: b).status == 404)
                #expect(try await h.call(.DELETE, "/v1/webhooks/\(hookID)", key: b).status == 404)
                #expect(
                    try await h.call(
                        .PUT, "/v1/regions/bund", key: b, body: circleFeature("bund", lat: 0, lon: 0, radius: 5)
                    ).status == 201)
                // B's device of the same name is a different device: its own state, no effect on A's order.
                let bFix = try await h.call(
                    .POST, "/v1/devices/d1/locations", key: b, body: fixJSON(0, 0, t: 1_800_001_000))
                #expect(bFix.status == 200, "\(bFix)")
                #expect(bFix["events"]?.array?.isEmpty == true)
                #expect(try await h.call(.DELETE, "/v1/regions/bund", key: b).status == 204)

                #expect(try await snapshotA() == before)
                // B's changes produced no deliveries for A's webhook beyond A's one event.
                let log = try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: a)
                #expect(log["deliveries"]?.array?.count == 1)
            }
        }
    }
}
