import AsyncHTTPClient
import Foundation
import Geodesy
import Geofencing
import Logging
import ServiceLifecycle
import Testing

@testable import GeofenceServer

/// A push service that records every message and answers with the next scripted outcome
/// (delivered once the script runs out).
final class RecordingPushSender: PushSender {
    actor Log {
        var sent: [PushMessage] = []
        var script: [PushOutcome]
        init(script: [PushOutcome]) { self.script = script }
        func record(_ m: PushMessage) -> PushOutcome {
            sent.append(m)
            return script.isEmpty ? .delivered(serviceID: "svc-\(sent.count)") : script.removeFirst()
        }
    }
    let log: Log
    init(script: [PushOutcome] = []) { log = Log(script: script) }
    func send(_ message: PushMessage) async -> PushOutcome { await log.record(message) }
    var sent: [PushMessage] { get async { await log.sent } }
}

/// A push service that takes 5 ms per message and counts how many it holds at once.
actor SlowPushSender: PushSender {
    private(set) var sent = 0
    private(set) var peak = 0
    private var inFlight = 0

    func send(_ message: PushMessage) async -> PushOutcome {
        inFlight += 1
        peak = max(peak, inFlight)
        try? await Task.sleep(for: .milliseconds(5))
        inFlight -= 1
        sent += 1
        return .delivered(serviceID: nil)
    }
}

/// A push service that never answers: each send waits until it is cancelled.
struct SilentPushSender: PushSender {
    func send(_ message: PushMessage) async -> PushOutcome {
        try? await Task.sleep(for: .seconds(3_600))
        return .retry(reason: "no answer", retryAfter: nil)
    }
}

/// Notifications end to end: a phone registers its token, reports through OwnTracks, and the
/// notification worker sends through a recording ``PushSender``; every time-dependent rule is
/// driven by the harness's clock.
@Suite("Notifications end to end: tokens, rules, the outbox, delivery and its log")
struct NotificationDeliveryTests {
    typealias Apps = TrackingAppIngestTests
    static let center = (lat: 31.239394, lon: 121.499781)
    static let t0 = 1_800_000_000.0
    static let apnsToken = String(repeating: "0123456789abcdef", count: 4)
    static let device = "alice/phone"
    static let devicePath = "alice%2Fphone"

    /// The seed's region, a rule for entries, a phone key and its registered token.
    static func seed(_ h: Harness, rule: String? = nil) async throws -> (admin: String, phone: String) {
        let admin = try await h.key("acme")
        let phone = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .prefix("alice/")))
        let put = try await h.call(
            .PUT, "/v1/regions/bund", key: admin,
            body: circleFeature(
                "bund", lat: center.lat, lon: center.lon, radius: 2_000, extra: #","name":"The Bund""#))
        #expect(put.status == 201, "\(put)")
        let r = try await h.call(
            .POST, "/v1/notification-rules", key: admin,
            body: rule
                ?? #"{"id":"welcome","events":["enter"],"title":"Welcome to {region.name}","body":"{device.id} entered {region.id}"}"#
        )
        #expect(r.status == 201, "\(r)")
        try await register(h, key: phone)
        return (admin, phone)
    }

    static func register(_ h: Harness, key: String) async throws {
        let t = try await h.call(
            .PUT, "/v1/devices/\(devicePath)/push-tokens/\(apnsToken)", key: key,
            body: #"{"service":"apns","topic":"com.example.shop","environment":"production"}"#)
        #expect(t.status == 200, "\(t)")
    }

    /// One OwnTracks location message.
    static func report(_ h: Harness, key: String, lat: Double, t: Double) async throws {
        let body = #"{"_type":"location","lat":\#(lat),"lon":\#(center.lon),"tst":\#(Int(t)),"acc":8}"#
        let r = try await Apps.send(
            h, .POST, "/v1/ingest/owntracks", body: body,
            headers: [Apps.basic("alice", key), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")])
        #expect(r.status == 200, "\(r)")
    }

    static let insideLat = 31.240394
    static let outsideLat = 31.269394 // 3.3 km north

    /// Outside, then in for `inside` fixes 10 s apart; returns the time after the last fix.
    @discardableResult
    static func walkIn(_ h: Harness, key: String, from t: Double, inside: Int = 6) async throws -> Double {
        try await report(h, key: key, lat: outsideLat, t: t)
        for i in 1...inside { try await report(h, key: key, lat: insideLat, t: t + 10 * Double(i)) }
        return t + 10 * Double(inside + 1)
    }

    static func log(_ h: Harness, key: String) async throws -> [ServerJSON] {
        let r = try await h.call(.GET, "/v1/devices/\(devicePath)/notifications", key: key)
        #expect(r.status == 200, "\(r)")
        return r["notifications"]?.array ?? []
    }

    static func notifier(_ h: Harness) throws -> NotificationDispatcher { try #require(h.server.notifier) }

    @Test(
        "the seed's scenario: walk in, linger, leave, come back within the cap → exactly one notification",
        arguments: StoreKind.allCases)
    func seedScenario(_ store: StoreKind) async throws {
        let apns = RecordingPushSender()
        try await Harness.run(store, pushSenders: PushSenders(apns: apns)) { h in
            let (admin, phone) = try await Self.seed(h)
            // Walk in and linger 20 minutes.
            var t = try await Self.walkIn(h, key: phone, from: Self.t0)
            for i in 1...20 { try await Self.report(h, key: phone, lat: Self.insideLat, t: t + 60 * Double(i)) }
            t += 1_260
            // Leave, and come back an hour later (within the 12 h cap).
            for i in 0..<6 { try await Self.report(h, key: phone, lat: Self.outsideLat, t: t + 10 * Double(i)) }
            t += 3_600
            try await Self.walkIn(h, key: phone, from: t)
            let events = try await h.call(.GET, "/v1/events?after=0", key: admin)
            let kinds = events["events"]?.array?.compactMap { $0["event"]?.string }
            #expect(kinds == ["enter", "exit", "enter"], "\(events)")

            let notifier = try Self.notifier(h)
            #expect(try await notifier.deliverDue() == 1)
            #expect(try await notifier.deliverDue() == 0)
            let sent = await apns.sent
            try #require(sent.count == 1)
            let m = sent[0]
            #expect(m.destination.token == Self.apnsToken)
            #expect(m.destination.service == .apns(topic: "com.example.shop", environment: .production))
            #expect(m.title == "Welcome to The Bund")
            #expect(m.body == "alice/phone entered bund")
            #expect(m.kind == .alert)
            let firstEnter = try #require(events["events"]?.array?.first?["id"]?.string)
            #expect(m.data["eventId"] == firstEnter)
            #expect(m.id == NotificationID.messageID(eventID: firstEnter, token: Self.apnsToken))
            #expect(m.collapseID == firstEnter)

            // The log: one delivered, the second entry dropped by the cap.
            let entries = try await Self.log(h, key: phone)
            #expect(entries.compactMap { $0["state"]?.string } == ["delivered", "dropped"], "\(entries)")
            #expect(entries.last?["reason"]?.string == "cap")
            #expect(entries.first?["messageId"]?.string == m.id.uuidString.lowercased())
            #expect(entries.first?["attempts"]?.number == 1)
        }
    }

    @Test(
        "a re-send after a crash between the service's answer and the log's update carries the same ids",
        arguments: StoreKind.allCases)
    func resendAfterCrash(_ store: StoreKind) async throws {
        let apns = RecordingPushSender()
        try await Harness.run(store, pushSenders: PushSenders(apns: apns)) { h in
            let (_, phone) = try await Self.seed(h)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            let notifications = try #require(h.server.store as? any NotificationStore)
            // A worker plans and leases the notification, the service accepts it, and the worker
            // dies before the log's update.
            #expect(try await notifications.planNotifications(now: h.clock.date, limit: 10) == 1)
            let leased = try await notifications.dueNotifications(now: h.clock.date, limit: 10)
            try #require(leased.count == 1)
            #expect(await apns.send(leased[0].message) == .delivered(serviceID: "svc-1"))
            // Another worker: nothing while the lease holds, then the same message again.
            let notifier = try Self.notifier(h)
            #expect(try await notifier.deliverDue() == 0)
            h.clock.advance(notificationLeaseSeconds + 1)
            #expect(try await notifier.deliverDue() == 1)
            let sent = await apns.sent
            try #require(sent.count == 2)
            #expect(sent[0].id == sent[1].id)
            #expect(sent[0].collapseID == sent[1].collapseID)
            #expect(sent[0] == sent[1])
            #expect(try await Self.log(h, key: phone).first?["state"]?.string == "delivered")
        }
    }

    @Test(
        "410: a token registered again after the service's timestamp stays; one registered before goes",
        arguments: StoreKind.allCases)
    func tokenInvalidByTimestamp(_ store: StoreKind) async throws {
        for (offset, kept) in [(-500.0, true), (500.0, false)] {
            let registered = Self.t0 + 1_000
            let apns = RecordingPushSender(script: [
                .tokenInvalid(reason: "Unregistered", invalidSince: Date(timeIntervalSince1970: registered + offset))
            ])
            try await Harness.run(store, pushSenders: PushSenders(apns: apns)) { h in
                let (_, phone) = try await Self.seed(h)
                h.clock.advance(1_000)
                try await Self.register(h, key: phone) // registered again at t0 + 1000
                try await Self.walkIn(h, key: phone, from: Self.t0)
                #expect(try await Self.notifier(h).deliverDue() == 1)
                let tokens = try await h.call(.GET, "/v1/devices/\(Self.devicePath)/push-tokens", key: phone)
                #expect((tokens["tokens"]?.array?.count ?? -1) == (kept ? 1 : 0), "offset \(offset): \(tokens)")
                let entry = try await Self.log(h, key: phone).first
                #expect(entry?["state"]?.string == "token-invalid")
                #expect(entry?["reason"]?.string == "Unregistered")
            }
        }
    }

    @Test(
        "a retry is sent again after Retry-After, not before; a refusal ends the delivery",
        arguments: StoreKind.allCases)
    func retryAfterAndRefusal(_ store: StoreKind) async throws {
        let apns = RecordingPushSender(script: [
            .retry(reason: "TooManyRequests", retryAfter: .seconds(30)),
            .retry(reason: "ServiceUnavailable", retryAfter: nil),
        ])
        try await Harness.run(store, pushSenders: PushSenders(apns: apns)) { h in
            let (_, phone) = try await Self.seed(h)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            let notifier = try Self.notifier(h)
            #expect(try await notifier.deliverDue() == 1) // 429, Retry-After 30 s
            h.clock.advance(29)
            #expect(try await notifier.deliverDue() == 0)
            var entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "pending")
            #expect(entry?["reason"]?.string == "TooManyRequests")
            #expect(entry?["nextAttemptAt"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Self.t0 + 30)))
            h.clock.advance(1)
            #expect(try await notifier.deliverDue() == 1) // 503, no Retry-After: the back-off (4 s after attempt 2)
            h.clock.advance(3.5)
            #expect(try await notifier.deliverDue() == 0)
            h.clock.advance(0.5)
            #expect(try await notifier.deliverDue() == 1) // delivered
            entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "delivered")
            #expect(entry?["attempts"]?.number == 3)
            #expect(Set(await apns.sent.map(\.id)).count == 1)
        }
        let refusing = RecordingPushSender(script: [.refused(reason: "BadTopic")])
        try await Harness.run(store, pushSenders: PushSenders(apns: refusing)) { h in
            let (_, phone) = try await Self.seed(h)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            #expect(try await Self.notifier(h).deliverDue() == 1)
            h.clock.advance(86_400)
            #expect(try await Self.notifier(h).deliverDue() == 0)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "refused")
            #expect(entry?["reason"]?.string == "BadTopic")
        }
    }

    @Test("quiet hours in the device's time zone hold the notification or drop it, as the rule says")
    func quietHours() async throws {
        // The clock starts at 2027-01-15T08:00:00Z, 16:00 in Shanghai.
        let settings = #"{"timeZone":"Asia/Shanghai","quietHours":{"start":"15:30","end":"17:00"}}"#
        let apns = RecordingPushSender()
        try await Harness.run(pushSenders: PushSenders(apns: apns)) { h in
            let (_, phone) = try await Self.seed(h)
            let s = try await h.call(
                .PUT, "/v1/devices/\(Self.devicePath)/notification-settings", key: phone, body: settings)
            #expect(s.status == 200, "\(s)")
            try await Self.walkIn(h, key: phone, from: Self.t0)
            let notifier = try Self.notifier(h)
            #expect(try await notifier.deliverDue() == 0)
            h.clock.advance(3_599)
            #expect(try await notifier.deliverDue() == 0)
            h.clock.advance(1) // 17:00 in Shanghai
            #expect(try await notifier.deliverDue() == 1)
            #expect(await apns.sent.count == 1)
        }
        try await Harness.run(pushSenders: PushSenders(apns: apns)) { h in
            let (_, phone) = try await Self.seed(
                h, rule: #"{"events":["enter"],"title":"Hi","quietHours":"drop"}"#)
            _ = try await h.call(
                .PUT, "/v1/devices/\(Self.devicePath)/notification-settings", key: phone, body: settings)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            #expect(try await Self.notifier(h).deliverDue() == 0)
            h.clock.advance(86_400)
            #expect(try await Self.notifier(h).deliverDue() == 0)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "dropped")
            #expect(entry?["reason"]?.string == "quiet-hours")
        }
        #expect(await apns.sent.count == 1)
    }

    @Test(
        "before each send, retries included: quiet hours hold (no attempt counted) or drop, expiry ends it, an opt-out since planning stops it",
        arguments: StoreKind.allCases)
    func checkedBeforeEachSend(_ store: StoreKind) async throws {
        // 16:00 in Shanghai; the first send is answered 503, Retry-After 120 s: due again at 16:02.
        func run(
            _ store: StoreKind, rule: String = #"{"events":["enter"],"title":"Hi"}"#, settings: String,
            settingsAfterFirstSend: Bool = false,
            _ check: (Harness, String, NotificationDispatcher) async throws -> Void
        ) async throws -> [PushMessage] {
            let apns = RecordingPushSender(script: [.retry(reason: "ServiceUnavailable", retryAfter: .seconds(120))])
            try await Harness.run(store, pushSenders: PushSenders(apns: apns)) { h in
                let (_, phone) = try await Self.seed(h, rule: rule)
                func putSettings() async throws {
                    let s = try await h.call(
                        .PUT, "/v1/devices/\(Self.devicePath)/notification-settings", key: phone, body: settings)
                    #expect(s.status == 200, "\(s)")
                }
                if !settingsAfterFirstSend { try await putSettings() }
                try await Self.walkIn(h, key: phone, from: Self.t0)
                let notifier = try Self.notifier(h)
                #expect(try await notifier.deliverDue() == 1)
                if settingsAfterFirstSend { try await putSettings() }
                h.clock.advance(120)
                try await check(h, phone, notifier)
            }
            return await apns.sent
        }
        let shanghai = #""timeZone":"Asia/Shanghai""#
        // Hold: the retry falls in 16:01–16:30, so it waits for 16:30, with one attempt counted.
        var sent = try await run(store, settings: #"{\#(shanghai),"quietHours":{"start":"16:01","end":"16:30"}}"#) {
            h, phone, notifier in
            #expect(try await notifier.deliverDue() == 1)
            var entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "pending")
            #expect(entry?["attempts"]?.number == 1)
            #expect(
                entry?["nextAttemptAt"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Self.t0 + 1_800)))
            h.clock.advance(1_800 - 120 - 1)
            #expect(try await notifier.deliverDue() == 0)
            h.clock.advance(1)
            #expect(try await notifier.deliverDue() == 1)
            entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "delivered")
            #expect(entry?["attempts"]?.number == 2)
        }
        #expect(sent.count == 2)
        // Drop: the rule says so.
        sent = try await run(
            store, rule: #"{"events":["enter"],"title":"Hi","quietHours":"drop"}"#,
            settings: #"{\#(shanghai),"quietHours":{"start":"16:01","end":"16:30"}}"#
        ) { h, phone, notifier in
            #expect(try await notifier.deliverDue() == 1)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "dropped")
            #expect(entry?["reason"]?.string == "quiet-hours")
        }
        #expect(sent.count == 1)
        // Quiet until 17:30, past the notification's expiry at 17:00: it is not held, it expires.
        sent = try await run(store, settings: #"{\#(shanghai),"quietHours":{"start":"16:01","end":"17:30"}}"#) {
            h, phone, notifier in
            #expect(try await notifier.deliverDue() == 1)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "dropped")
            #expect(entry?["reason"]?.string == "expired")
        }
        #expect(sent.count == 1)
        // Opted out after the first send: the retry is not sent.
        sent = try await run(store, settings: #"{"optOut":true}"#, settingsAfterFirstSend: true) {
            h, phone, notifier in
            #expect(try await notifier.deliverDue() == 1)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "dropped")
            #expect(entry?["reason"]?.string == "opted-out")
        }
        #expect(sent.count == 1)
    }

    @Test("with no push service configured, the notification is logged unconfigured; an opted-out device gets none")
    func unconfiguredAndOptOut() async throws {
        try await Harness.run(pushSenders: PushSenders.none) { h in
            let (_, phone) = try await Self.seed(h)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            #expect(try await Self.notifier(h).deliverDue() == 1)
            let entry = try await Self.log(h, key: phone).first
            #expect(entry?["state"]?.string == "unconfigured")
            #expect(entry?["reason"]?.string == "no APNs credentials are configured")
        }
        let apns = RecordingPushSender()
        try await Harness.run(pushSenders: PushSenders(apns: apns)) { h in
            let (_, phone) = try await Self.seed(h)
            _ = try await h.call(
                .PUT, "/v1/devices/\(Self.devicePath)/notification-settings", key: phone, body: #"{"optOut":true}"#)
            try await Self.walkIn(h, key: phone, from: Self.t0)
            #expect(try await Self.notifier(h).deliverDue() == 0)
            #expect(try await Self.log(h, key: phone).first?["reason"]?.string == "opted-out")
        }
        #expect(await apns.sent.isEmpty)
    }

    @Test("token routes: a phone manages its own tokens only; bad tokens, too many tokens, hostile input")
    func tokenRoutes() async throws {
        try await Harness.run { h in
            let admin = try await h.key("acme")
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("p1")))
            let viewer = try await h.server.createAPIKey(tenant: "acme", scope: .read)
            let body = #"{"service":"apns","topic":"com.example.app","environment":"sandbox"}"#
            func put(_ device: String, _ token: String, key: String, body: String = body) async throws -> Reply {
                try await h.call(.PUT, "/v1/devices/\(device)/push-tokens/\(token)", key: key, body: body)
            }
            let hex = { (i: Int) in String(format: "%064x", i) }
            #expect(try await put("p1", hex(1), key: phone).status == 200)
            #expect(try await put("p2", hex(1), key: phone).status == 403)
            #expect(try await put("p1", hex(2), key: viewer).status == 403)
            #expect(try await h.call(.GET, "/v1/devices/p1/push-tokens", key: viewer).status == 200)
            #expect(try await h.call(.GET, "/v1/devices/p2/push-tokens", key: phone).status == 403)
            #expect(try await h.call(.GET, "/v1/notification-rules", key: phone).status == 403)
            let bad = try await put("p1", "zz" + hex(1), key: phone)
            #expect(bad.status == 400 && bad["field"]?.string == "token", "\(bad)")
            let fcm = try await put("p1", "abc", key: phone, body: #"{"service":"fcm"}"#)
            #expect(fcm.status == 400 && fcm["field"]?.string == "project", "\(fcm)")
            #expect(try await put("p1", hex(1), key: phone, body: "[]").status == 400)
            #expect(try await put("p1", hex(1), key: phone, body: "{").status == 400)
            // Re-registering the same token (in either case) replaces it, and is no new token.
            #expect(try await put("p1", hex(1).uppercased(), key: phone).status == 200)
            for i in 2...10 { #expect(try await put("p1", hex(i), key: phone).status == 200) }
            let full = try await put("p1", hex(11), key: phone)
            #expect(full.status == 409, "\(full)")
            let list = try await h.call(.GET, "/v1/devices/p1/push-tokens", key: admin)
            #expect(list["tokens"]?.array?.count == 10)
            #expect(
                try await h.call(.DELETE, "/v1/devices/p1/push-tokens/\(hex(1).uppercased())", key: phone).status
                    == 204)
            #expect(try await h.call(.DELETE, "/v1/devices/p1/push-tokens/\(hex(1))", key: phone).status == 404)
            #expect(try await put("p1", hex(11), key: phone).status == 200)
            // Rules: refused with a field; listed; deleted.
            let unknown = try await h.call(
                .POST, "/v1/notification-rules", key: admin, body: #"{"events":["enter"],"title":"{user.name}"}"#)
            #expect(unknown.status == 400 && unknown["field"]?.string == "title", "\(unknown)")
            let rule = try await h.call(
                .POST, "/v1/notification-rules", key: admin, body: #"{"id":"r1","events":["exit"],"title":"Bye"}"#)
            #expect(rule.status == 201, "\(rule)")
            #expect(rule["capHours"]?.number == 12)
            let again = try await h.call(
                .POST, "/v1/notification-rules", key: admin, body: #"{"id":"r1","events":["exit"],"title":"Bye"}"#)
            #expect(again.status == 409)
            let rules = try await h.call(.GET, "/v1/notification-rules", key: admin)
            #expect(rules["rules"]?.array?.compactMap { $0["id"]?.string } == ["r1"])
            #expect(try await h.call(.DELETE, "/v1/notification-rules/r1", key: admin).status == 204)
            #expect(try await h.call(.DELETE, "/v1/notification-rules/r1", key: admin).status == 404)
        }
    }

    /// `count` enter events of distinct devices, committed straight to the store.
    static func commitEvents(_ store: any ServerStore, count: Int, now: Date) async throws {
        let tokens = try #require(store as? any NotificationStore)
        for i in 0..<count {
            let device = "d\(i)"
            let token = PushToken(
                token: String(format: "%064x", i), service: .apns(topic: "com.x", environment: .sandbox),
                registeredAt: now)
            #expect(try await tokens.putPushToken(tenant: "acme", device: device, token))
        }
        var batches: [FixBatch] = []
        for i in 0..<count {
            let t = now.addingTimeInterval(Double(i))
            let fix = LocationFix(
                subject: "d\(i)", coordinate: Coordinate(uncheckedLatitude: 1, longitude: 1), timestamp: t)
            let event = TransitionEvent(kind: .enter, regionID: "r", subject: "d\(i)", fix: fix, time: t, crossedAt: t)
            batches.append(
                FixBatch(
                    device: "d\(i)", fixes: [fix],
                    events: [StoredEvent(id: UUID().uuidString.lowercased(), tenant: "acme", event: event)]))
        }
        for chunk in stride(from: 0, to: count, by: 100) {
            _ = try await store.commitFixBatches(
                tenant: "acme", Array(batches[chunk..<min(chunk + 100, count)]), now: now)
        }
    }

    @Test(
        "a worker has at most sendsInFlight sends at the service at once, and fills its window",
        arguments: StoreKind.allCases)
    func boundedConcurrency(_ store: StoreKind) async throws {
        try await TestDatabase.with(store) { db in
            let logger = Harness.quietLogger()
            let opened = try await GeofenceServer.openStore(db.location, logger: logger)
            let notifications = try #require(opened as? any NotificationStore)
            let now = Date(timeIntervalSince1970: Self.t0)
            let rule = try NotificationRule.parse(
                try ServerJSON.parse(Data(#"{"events":["enter"],"title":"Hi {device.id}"}"#.utf8)), generatedID: "r")
            #expect(try await notifications.addNotificationRule(tenant: "acme", rule, now: now))
            try await Self.commitEvents(opened, count: 300, now: now)
            let sender = SlowPushSender()
            var configuration = NotificationConfiguration()
            configuration.sendsInFlight = 16
            let worker = NotificationDispatcher(
                store: notifications, senders: PushSenders(apns: sender), configuration: configuration,
                clock: { now }, logger: logger)
            #expect(try await worker.deliverDue() == 300)
            #expect(await sender.sent == 300)
            #expect(await sender.peak == 16)
            try await opened.close()
        }
    }

    @Test("two workers on one database, 1,000 events: 1,000 notifications, none twice", arguments: StoreKind.allCases)
    func twoWorkers(_ store: StoreKind) async throws {
        try await TestDatabase.with(store) { db in
            let logger = Harness.quietLogger()
            let first = try await GeofenceServer.openStore(db.location, logger: logger)
            // A second instance: its own connection pool on PostgreSQL, the same file on SQLite.
            let second = try await GeofenceServer.openStore(db.location, logger: logger)
            let now = Date(timeIntervalSince1970: Self.t0)
            let rules = try #require(first as? any NotificationStore)
            let rule = try NotificationRule.parse(
                try ServerJSON.parse(Data(#"{"events":["enter"],"title":"Hi {device.id}"}"#.utf8)), generatedID: "r")
            #expect(try await rules.addNotificationRule(tenant: "acme", rule, now: now))
            try await Self.commitEvents(first, count: 1_000, now: now)
            let senders = [RecordingPushSender(), RecordingPushSender()]
            let workers = try zip([first, second], senders).map { store, sender in
                NotificationDispatcher(
                    store: try #require(store as? any NotificationStore), senders: PushSenders(apns: sender),
                    configuration: NotificationConfiguration(), clock: { now }, logger: logger)
            }
            async let a = workers[0].deliverDue()
            async let b = workers[1].deliverDue()
            let sends = try await a + b
            #expect(sends == 1_000)
            let all = await senders[0].sent + senders[1].sent
            #expect(all.count == 1_000)
            #expect(Set(all.map(\.id)).count == 1_000)
            #expect(Set(all.compactMap { $0.data["eventId"] }).count == 1_000)
            #expect(try await workers[0].deliverDue() + workers[1].deliverDue() == 0)
            try await first.close()
            try await second.close()
        }
    }

    @Test("graceful shutdown with the push service silent: the last round gives up after its limit and logs no attempt")
    func lastRoundIsBounded() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let logger = Harness.quietLogger()
            let opened = try await GeofenceServer.openStore(db.location, logger: logger)
            let notifications = try #require(opened as? any NotificationStore)
            let now = Date(timeIntervalSince1970: Self.t0)
            let rule = try NotificationRule.parse(
                try ServerJSON.parse(Data(#"{"events":["enter"],"title":"Hi"}"#.utf8)), generatedID: "r")
            #expect(try await notifications.addNotificationRule(tenant: "acme", rule, now: now))
            try await Self.commitEvents(opened, count: 20, now: now)
            var configuration = NotificationConfiguration()
            configuration.pollInterval = .seconds(3_600) // only the last round runs
            configuration.lastRoundLimit = .seconds(1)
            let worker = NotificationDispatcher(
                store: notifications, senders: PushSenders(apns: SilentPushSender()), configuration: configuration,
                clock: { now }, logger: logger)
            let group = ServiceGroup(services: [worker], gracefulShutdownSignals: [], logger: logger)
            let started = ContinuousClock.now
            async let running: Void = group.run()
            await group.triggerGracefulShutdown()
            try await running
            // The silent service would have held the shutdown for an hour.
            #expect(ContinuousClock.now - started < .seconds(60))
            // Planned, sent, cut short: still pending, with no attempt counted against it.
            for device in ["d0", "d19"] {
                let log = try await notifications.notificationLog(tenant: "acme", device: device, after: 0, limit: 10)
                #expect(log.count == 1)
                #expect(log.first?["state"] == "pending")
                #expect(log.first?["attempts"] == 0)
            }
            try await opened.close()
        }
    }
}
