import Foundation
import GeofenceServer
import Testing

@Suite("Event stream (Server-Sent Events)")
struct EventStreamTests {
    /// The `id:` lines of an SSE body.
    static func ids(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
    }

    /// Two devices enter the Bund region: two events, cursors 1 and 2.
    static func twoEntries(_ h: Harness, key: String, devices: [String]) async throws {
        for d in devices {
            let fixes =
                [fixJSON(31.259394, 121.499781, t: 1_800_000_000)]
                + (1...4).map { fixJSON(31.240394, 121.499781, t: 1_800_000_000 + 10 * Double($0)) }
            let r = try await h.call(
                .POST, "/v1/devices/\(d)/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
            #expect(r["events"]?.array?.count == 1)
        }
    }

    @Test(
        "a stream replays from the cursor and resumes with Last-Event-ID without gaps or duplicates",
        arguments: StoreKind.allCases)
    func resumes(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.streamPollInterval = .milliseconds(10) }) { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/bund", key: key,
                body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
            try await Self.twoEntries(h, key: key, devices: ["a", "b"])
            let first = try await h.call(.GET, "/v1/events/stream?after=0&limit=1", key: key)
            #expect(first.status == 200)
            #expect(first.header("Content-Type") == "text/event-stream")
            #expect(Self.ids(first.text) == ["1"])
            #expect(first.text.contains("event: enter\ndata: {"))
            let rest = try await h.call(.GET, "/v1/events/stream?limit=1", key: key, headers: [("Last-Event-ID", "1")])
            #expect(Self.ids(rest.text) == ["2"])
            // Nothing new: the stream ends at its timeout, empty.
            let idle = try await h.call(.GET, "/v1/events/stream?after=2&timeout=1", key: key)
            #expect(Self.ids(idle.text) == [])
            // Another tenant's stream sees none of it.
            let other = try await h.key("other")
            #expect(Self.ids(try await h.call(.GET, "/v1/events/stream?after=0&timeout=1", key: other).text) == [])
        }
    }

    @Test("a stream opened before an event is committed delivers it live", arguments: StoreKind.allCases)
    func live(_ store: StoreKind) async throws {
        try await Harness.run(store, configure: { $0.streamPollInterval = .milliseconds(10) }) { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/bund", key: key,
                body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
            let listener = Task { try await h.call(.GET, "/v1/events/stream?after=0&limit=2&timeout=60", key: key) }
            try await Self.twoEntries(h, key: key, devices: ["a", "b"])
            let got = try await listener.value
            #expect(Self.ids(got.text) == ["1", "2"])
        }
    }

    @Test("a bad resume cursor is a 400 naming it", arguments: StoreKind.allCases)
    func badCursor(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            let r = try await h.call(.GET, "/v1/events/stream?after=abc", key: key)
            #expect(r.status == 400)
            #expect(r["field"]?.string == "after")
        }
    }
}
