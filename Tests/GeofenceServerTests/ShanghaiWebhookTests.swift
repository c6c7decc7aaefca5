import Foundation
import GeofenceServer
import Testing

/// The seed's Shanghai scenario over HTTP, and webhook delivery of its event.
@Suite("Shanghai scenario and webhooks over HTTP")
struct ShanghaiWebhookTests {
    static let center = (lat: 31.239394, lon: 121.499781)
    static let t0 = 1_800_000_000.0

    /// Region + one fix outside + fixes inside spaced past the confirmation time.
    static func runScenario(_ h: Harness, key: String) async throws -> [ServerJSON] {
        let put = try await h.call(
            .PUT, "/v1/regions/bund", key: key,
            body: circleFeature("ignored", lat: center.lat, lon: center.lon, radius: 2_000))
        #expect(put.status == 201, "\(put)")
        let outside = try await h.call(
            .POST, "/v1/devices/phone-1/locations", key: key,
            body: fixJSON(31.259394, 121.499781, t: t0))
        #expect(outside.status == 200, "\(outside)")
        #expect(outside["events"]?.array?.count == 0)
        let inside = (1...4).map { fixJSON(31.240394, 121.499781, t: t0 + 10 * Double($0)) }.joined(separator: ",")
        let batch = try await h.call(.POST, "/v1/devices/phone-1/locations", key: key, body: "{\"fixes\":[\(inside)]}")
        #expect(batch.status == 200, "\(batch)")
        #expect(batch["accepted"]?.number == 4)
        return batch["events"]?.array ?? []
    }

    @Test(
        "the Shanghai track gives exactly one entry, delivered once with a valid signature",
        arguments: StoreKind.allCases)
    func shanghaiEntryDeliveredOnce(_ store: StoreKind) async throws {
        try await Receiver.run { receiver in
            try await Harness.run(store) { h in
                let key = try await h.key("acme")
                let hook = try await h.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"\#(receiver.url)"}"#)
                #expect(hook.status == 201, "\(hook)")
                let secret = try #require(hook["secret"]?.string)
                let hookID = try #require(hook["id"]?.string)

                let events = try await Self.runScenario(h, key: key)
                try #require(events.count == 1)
                #expect(events[0]["event"]?.string == "enter")
                #expect(events[0]["region"]?.string == "bund")
                #expect(events[0]["device"]?.string == "phone-1")
                #expect(events[0]["time"]?.string == "2027-01-15T08:00:40Z") // t0 + 40 s: 4 fixes, ≥ 8 s
                let eventID = try #require(events[0]["id"]?.string)

                // The outbox has it, with a cursor.
                let page = try await h.call(.GET, "/v1/events?after=0", key: key)
                #expect(page["events"]?.array?.count == 1)
                #expect(page["events"]?.array?.first?["id"]?.string == eventID)

                // State: inside.
                let state = try await h.call(.GET, "/v1/devices/phone-1/state?regions=bund,nope", key: key)
                #expect(state["inside"]?.array?.compactMap(\.string) == ["bund"])
                #expect(state["regions"]?["bund"]?.string == "inside")
                #expect(state["regions"]?["nope"] == .null)

                // Deliver: once, signed; a second round sends nothing.
                #expect(try await h.server.dispatcher.deliverDue() == 1)
                #expect(try await h.server.dispatcher.deliverDue() == 0)
                h.clock.advance(86_400)
                #expect(try await h.server.dispatcher.deliverDue() == 0)
                let hits = await receiver.log.hits
                try #require(hits.count == 1)
                #expect(hits[0].eventID == eventID)
                #expect(WebhookSignature.verify(header: hits[0].signature, secret: secret, body: hits[0].body))
                #expect(!WebhookSignature.verify(header: hits[0].signature, secret: secret + "x", body: hits[0].body))
                let sent = try ServerJSON.parse(hits[0].body)
                #expect(sent["id"]?.string == eventID)
                #expect(sent["event"]?.string == "enter")

                let log = try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: key)
                let d = try #require(log["deliveries"]?.array?.first)
                #expect(d["state"]?.string == "delivered")
                #expect(d["attempts"]?.number == 1)
                #expect(d["eventId"]?.string == eventID)
            }
        }
    }

    @Test(
        "a receiver failing three times then succeeding gets the event exactly once more", arguments: StoreKind.allCases
    )
    func retriesWithBackoffUntilSuccess(_ store: StoreKind) async throws {
        try await Receiver.run(script: [500, 503, 500]) { receiver in
            try await Harness.run(store) { h in
                let key = try await h.key("acme")
                let hook = try await h.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"\#(receiver.url)"}"#)
                let hookID = try #require(hook["id"]?.string)
                let events = try await Self.runScenario(h, key: key)
                try #require(events.count == 1)

                #expect(try await h.server.dispatcher.deliverDue() == 1) // attempt 1: 500
                #expect(try await h.server.dispatcher.deliverDue() == 0) // not due before the back-off
                h.clock.advance(1) // base delay 1 s
                #expect(try await h.server.dispatcher.deliverDue() == 1) // attempt 2: 503
                h.clock.advance(1.5)
                #expect(try await h.server.dispatcher.deliverDue() == 0) // back-off doubled to 2 s
                h.clock.advance(0.5)
                #expect(try await h.server.dispatcher.deliverDue() == 1) // attempt 3: 500
                var log = try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: key)
                #expect(log["deliveries"]?.array?.first?["state"]?.string == "pending")
                #expect(log["deliveries"]?.array?.first?["attempts"]?.number == 3)
                #expect(log["deliveries"]?.array?.first?["lastStatus"]?.number == 500)
                h.clock.advance(4)
                #expect(try await h.server.dispatcher.deliverDue() == 1) // attempt 4: 200
                h.clock.advance(3_600)
                #expect(try await h.server.dispatcher.deliverDue() == 0) // never again

                let hits = await receiver.log.hits
                #expect(hits.count == 4)
                #expect(Set(hits.map(\.eventID)).count == 1)
                #expect(hits.map(\.attempt) == ["1", "2", "3", "4"])
                log = try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: key)
                #expect(log["deliveries"]?.array?.first?["state"]?.string == "delivered")
                #expect(log["deliveries"]?.array?.first?["attempts"]?.number == 4)
            }
        }
    }

    @Test("a delivery is given up after maxAttempts and shows as failed", arguments: StoreKind.allCases)
    func givesUpAfterMaxAttempts(_ store: StoreKind) async throws {
        try await Receiver.run(script: Array(repeating: 500, count: 10)) { receiver in
            try await Harness.run(
                store, configure: { $0.webhookRetry = RetryPolicy(baseDelay: .seconds(1), maxAttempts: 3) }
            ) { h in
                let key = try await h.key("acme")
                let hook = try await h.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"\#(receiver.url)"}"#)
                let hookID = try #require(hook["id"]?.string)
                _ = try await Self.runScenario(h, key: key)
                for _ in 0..<6 {
                    try await h.server.dispatcher.deliverDue()
                    h.clock.advance(100)
                }
                #expect(await receiver.log.hits.count == 3)
                let log = try await h.call(.GET, "/v1/webhooks/\(hookID)/deliveries", key: key)
                #expect(log["deliveries"]?.array?.first?["state"]?.string == "failed")
            }
        }
    }

    @Test("the background worker delivers without being driven", arguments: StoreKind.allCases)
    func backgroundWorkerDelivers(_ store: StoreKind) async throws {
        try await Receiver.run { receiver in
            try await Harness.run(
                store, clock: ManualClock(Date()), configure: { $0.webhookPollInterval = .milliseconds(20) }
            ) { h in
                let key = try await h.key("acme")
                _ = try await h.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"\#(receiver.url)"}"#)
                _ = try await Self.runScenario(h, key: key)
                // Wait (bounded) for the worker's own round; no fixed sleep decides the result.
                var waited = 0
                while await receiver.log.hits.isEmpty, waited < 500 {
                    try await Task.sleep(for: .milliseconds(10))
                    waited += 1
                }
                #expect(await receiver.log.hits.count == 1)
            }
        }
    }

    @Test(
        "engines are rebuilt from the store on restart: state kept, no duplicate events, order still enforced",
        arguments: StoreKind.allCases)
    func restartRebuildsEngines(_ store: StoreKind) async throws {
        try await TestDatabase.with(store) { database in
            let db = database.location
            let key = try await Harness.run(database: db) { h in
                let key = try await h.key("acme")
                _ = try await h.call(
                    .PUT, "/v1/regions/bund", key: key,
                    body: circleFeature("bund", lat: Self.center.lat, lon: Self.center.lon, radius: 2_000))
                _ = try await h.call(
                    .POST, "/v1/devices/phone-1/locations", key: key, body: fixJSON(31.259394, 121.499781, t: Self.t0))
                // Three inside fixes: the entry is pending, not confirmed yet (four confirm).
                for dt in [10.0, 12, 14] {
                    let r = try await h.call(
                        .POST, "/v1/devices/phone-1/locations", key: key,
                        body: fixJSON(31.240394, 121.499781, t: Self.t0 + dt))
                    #expect(r["events"]?.array?.count == 0)
                }
                return key
            }
            try await Harness.run(database: db) { h in
                let state = try await h.call(.GET, "/v1/devices/phone-1/state", key: key)
                #expect(state.status == 200, "\(state)")
                #expect(state["pending"]?.array?.compactMap(\.string) == ["bund"])
                let old = try await h.call(
                    .POST, "/v1/devices/phone-1/locations", key: key,
                    body: fixJSON(31.240394, 121.499781, t: Self.t0 + 5))
                #expect(old.status == 409, "\(old)")
                // The pending entry survives the restart and is confirmed by the next fix.
                let r = try await h.call(
                    .POST, "/v1/devices/phone-1/locations", key: key,
                    body: fixJSON(31.240394, 121.499781, t: Self.t0 + 20))
                #expect(r["events"]?.array?.count == 1)
                let all = try await h.call(.GET, "/v1/events", key: key)
                #expect(all["events"]?.array?.count == 1)
            }
        }
    }
}
