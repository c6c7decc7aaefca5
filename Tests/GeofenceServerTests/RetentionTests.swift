import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

/// Retention deletes old fix batches (only those a snapshot covers) and old events (only once
/// no delivery is pending), in bounded transactions; a cursor older than what was kept is a 410.
@Suite("Retention of fixes and events")
struct RetentionTests {
    @Test("with retention switched off (keep forever) the server keeps serving", .timeLimit(.minutes(5)))
    func switchedOffKeepsServing() async throws {
        let database = Harness.temporaryDatabase()
        let key = try await ChildServer.runToCompletion([
            "serve", "create-key", "--tenant", "t", "--database", database,
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ChildServer.start([
            "--database", database, "--fix-retention-days", "0", "--event-retention-days", "0",
        ])
        defer { server.kill() }
        // The retention service used to return at once, which ended the service group: the
        // server stopped right after its "listening" line and these requests were refused.
        for _ in 0..<20 {
            let regions = try await CrashSafetyTests.get(server.baseURL, "/v1/regions", key: key)
            #expect(regions["regions"] != nil, "\(regions)")
        }
        #expect(server.process.isRunning, "\(server.log.suffix(600))")
    }

    @Test(
        "fix batches older than retention are deleted in bounded batches, only where a snapshot covers them, and a restart still rebuilds the same engine",
        arguments: StoreKind.allCases)
    func fixesPrunedBehindSnapshot(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let t0 = SnapshotTests.t0
            let regions = SnapshotTests.regions()
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(regions, create: false, now: t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<40)) // 32 batches
            let position = try #require(await live.takeSnapshot(now: t0))
            try await SnapshotTests.feed(live, SnapshotTests.batches(40..<60)) // 16 more, not covered

            // However late the cut-off, nothing the snapshot does not cover goes.
            var rounds: [Int] = []
            while true {
                let n = try await store.prune(tenant: "t", fixesBefore: .distantFuture, eventsBefore: nil, limit: 10)
                #expect(n.events == 0)
                if n.fixBatches == 0 { break }
                rounds.append(n.fixBatches)
            }
            #expect(rounds == [10, 10, 10, 2])
            let journal = try await store.startupJournal(tenant: "t", useSnapshot: true)
            #expect(journal.snapshot?.position == position)
            #expect(journal.tail.count == 16)
            #expect(
                try await store.journal(tenant: "t").count == 1 + 16,
                "the region import and the batches after the snapshot remain")

            let later = SnapshotTests.batches(60..<120)
            let ids = regions.map(\.identifier)
            let rebuilt = SnapshotTests.runtime(store)
            try await rebuilt.rebuild()
            #expect(
                SnapshotTests.behaviour(of: await rebuilt.engine, regions: ids, then: later)
                    == SnapshotTests.behaviour(of: await live.engine, regions: ids, then: later))
            try await store.close()
        }
    }

    @Test("fix batches younger than retention stay, even when a snapshot covers them", arguments: StoreKind.allCases)
    func youngFixesStay(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let t0 = SnapshotTests.t0
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(SnapshotTests.regions(), create: false, now: t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<20))
            #expect(await live.takeSnapshot(now: t0.addingTimeInterval(86_400)) != nil)
            let n = try await store.prune(
                tenant: "t", fixesBefore: t0.addingTimeInterval(86_399), eventsBefore: nil, limit: 100)
            #expect(n == PruneCount())
            #expect(try await store.journal(tenant: "t").count == 1 + 16)
            try await store.close()
        }
    }

    /// A tenant with a region and a device that crosses it: `count` enter/exit events.
    static func makeEvents(_ h: Harness, key: String, count: Int) async throws {
        let zone = circleFeature("zone", lat: 31.0, lon: 121.0, radius: 100)
        #expect(try await h.call(.POST, "/v1/regions", key: key, body: zone).status == 201)
        var fixes: [String] = []
        for k in 0..<(count * 3) {
            let inside = (k / 3) % 2 == 0
            fixes.append(fixJSON(inside ? 31.0 : 31.01, 121.0, t: 1_700_000_000 + Double(k) * 30, accuracy: 5))
        }
        let r = try await h.call(
            .POST, "/v1/devices/d/locations", key: key, body: #"{"fixes":[\#(fixes.joined(separator: ","))]}"#)
        #expect(r.status == 200, "\(r)")
    }

    @Test(
        "events are deleted once old and no delivery is pending; an older cursor is a 410 problem, no cursor starts at the oldest kept",
        arguments: StoreKind.allCases)
    func eventsPrunedAndCursorGone(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            let hook = try await h.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"http://127.0.0.1:1/hook"}"#)
            #expect(hook.status == 201)
            try await Self.makeEvents(h, key: key, count: 6)
            let all = try await h.call(.GET, "/v1/events?after=0", key: key)
            let cursors = (all["events"]?.array ?? []).compactMap { $0["cursor"]?.string }
            #expect(cursors.count >= 5)

            h.clock.advance(31 * 86_400)
            // Deliveries still pending: nothing goes.
            #expect(try await h.server.retention.pruneOnce().events == 0)
            #expect(try await h.call(.GET, "/v1/events?after=0", key: key).status == 200)

            // The webhook removed (its deliveries cancelled): every event is past retention.
            let hookID = try #require(hook["id"]?.string)
            #expect(try await h.call(.DELETE, "/v1/webhooks/\(hookID)", key: key).status == 204)
            #expect(try await h.server.retention.pruneOnce().events == cursors.count)

            let gone = try await h.call(.GET, "/v1/events?after=0", key: key)
            #expect(gone.status == 410, "\(gone)")
            #expect(gone.header("content-type") == "application/problem+json")
            #expect(gone["field"]?.string == "after")
            #expect(gone["resumeAfter"]?.string == cursors.last)
            let older = try await h.call(
                .GET, "/v1/events/stream?timeout=1", key: key, headers: [("Last-Event-ID", cursors[0])])
            #expect(older.status == 410, "\(older)")
            #expect(older["field"]?.string == "Last-Event-ID")

            #expect(try await h.call(.GET, "/v1/events?after=\(cursors.last!)", key: key).status == 200)
            let fresh = try await h.call(.GET, "/v1/events", key: key)
            #expect(fresh.status == 200)
            #expect(fresh["events"]?.array?.isEmpty == true)

            // New events after the prune are read from the kept cursor on.
            h.clock.advance(60)
            let more =
                fixJSON(31.0, 121.0, t: 1_700_100_000, accuracy: 5) + ","
                + fixJSON(31.0, 121.0, t: 1_700_100_060, accuracy: 5)
                + "," + fixJSON(31.0, 121.0, t: 1_700_100_120, accuracy: 5)
            #expect(
                try await h.call(.POST, "/v1/devices/d/locations", key: key, body: #"{"fixes":[\#(more)]}"#).status
                    == 200)
            let after = try await h.call(.GET, "/v1/events?after=\(cursors.last!)", key: key)
            #expect(after["events"]?.array?.count == 1)
        }
    }

    @Test("retention settings: days from the config file and flags, 0 keeps forever, absurd values are refused")
    func retentionSettings() throws {
        #expect(try ServerConfiguration.retention(days: 0, key: "k") == nil)
        #expect(try ServerConfiguration.retention(days: 1.5, key: "k") == .seconds(129_600))
        for bad in [-1, .nan, .infinity, 1e9] {
            #expect(throws: ConfigurationError.self) { try ServerConfiguration.retention(days: bad, key: "k") }
        }
        #expect(ServerConfiguration().fixRetention == .seconds(30 * 86_400))
        #expect(ServerConfiguration().eventRetention == .seconds(30 * 86_400))
    }
}

/// The delivery log goes with the events' retention, a bounded window at a time, and never
/// takes a notification still pending.
@Suite("Retention of the delivery log")
struct NotificationLogRetentionTests {
    @Test(
        "entries older than the events' retention and no longer pending go, oldest first", arguments: StoreKind.allCases
    )
    func logPruned(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let opened = try await db.open()
            let store = try #require(opened as? any NotificationStore)
            let now = Date(timeIntervalSince1970: NotificationDeliveryTests.t0)
            let rule = try NotificationRule.parse(
                try ServerJSON.parse(Data(#"{"events":["enter"],"title":"Hi"}"#.utf8)), generatedID: "r1")
            #expect(try await store.addNotificationRule(tenant: "acme", rule, now: now))
            try await NotificationDeliveryTests.commitEvents(opened, count: 5, now: now)
            #expect(try await store.planNotifications(now: now, limit: 10) == 5)
            // d0 … d3 delivered, d4 still pending.
            let due = try await store.dueNotifications(now: now, limit: 10).sorted { $0.id < $1.id }
            #expect(due.map(\.device) == ["d0", "d1", "d2", "d3", "d4"])
            try await store.recordNotifications(
                due.prefix(4).map { RecordedOutcome(id: $0.id, outcome: .delivered(serviceID: nil)) }, now: now)
            func logged(_ device: String) async throws -> Int {
                try await store.notificationLog(tenant: "acme", device: device, after: 0, limit: 10).count
            }

            // Not older than the cut: nothing goes.
            #expect(try await store.pruneNotifications(before: now, limit: 100) == 0)
            let later = now.addingTimeInterval(1)
            // A window of the two oldest entries.
            #expect(try await store.pruneNotifications(before: later, limit: 2) == 2)
            #expect(try await logged("d0") == 0)
            #expect(try await logged("d1") == 0)
            #expect(try await logged("d2") == 1)
            // The rest but the pending one.
            #expect(try await store.pruneNotifications(before: later, limit: 100) == 2)
            #expect(try await logged("d3") == 0)
            #expect(try await logged("d4") == 1)

            // Once it ends, the retention worker takes it with the events, 31 days on.
            try await store.recordNotifications(
                [RecordedOutcome(id: due[4].id, outcome: .ended(state: "failed", reason: "test"))], now: now)
            let retention = Retention(
                store: opened, fixRetention: nil, eventRetention: .seconds(30 * 86_400), interval: .seconds(60),
                batch: 2, clock: { now.addingTimeInterval(31 * 86_400) }, logger: Harness.quietLogger())
            #expect(try await retention.pruneOnce().notifications == 1)
            #expect(try await logged("d4") == 0)
            try await opened.close()
        }
    }
}
