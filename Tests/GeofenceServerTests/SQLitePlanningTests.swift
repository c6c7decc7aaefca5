import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

/// SQLite plans notifications in three steps (gather, plan off the connection, write): the
/// write must not act on a gather that another planner has overtaken.
@Suite("SQLite planning: a write checks the queue and the caps its plans read")
struct SQLitePlanningTests {
    static let now = Date(timeIntervalSince1970: NotificationDeliveryTests.t0)

    /// A store with a greeting rule (default cap) and one queued enter event of device `d0` in
    /// region `r`.
    static func storeWithOneEvent(_ db: TestDatabase) async throws -> SQLiteStore {
        try await storeWithEvents(at: db.location, count: 1)
    }

    /// A store at `location` with a greeting rule (default cap) and `count` queued enter
    /// events in region `r`, of devices `d0`, `d1`, ….
    static func storeWithEvents(at location: String, count: Int) async throws -> SQLiteStore {
        let store = try #require(
            try await GeofenceServer.openStore(location, logger: Harness.quietLogger()) as? SQLiteStore)
        let rule = try NotificationRule.parse(
            try ServerJSON.parse(Data(#"{"events":["enter"],"title":"Hi"}"#.utf8)), generatedID: "r1")
        #expect(try await store.addNotificationRule(tenant: "acme", rule, now: now))
        try await NotificationDeliveryTests.commitEvents(store, count: count, now: now)
        return store
    }

    static func log(_ store: SQLiteStore) async throws -> [ServerJSON] {
        try await store.notificationLog(tenant: "acme", device: "d0", after: 0, limit: 100)
    }

    @Test("a cap moved after the gather: the write throws, writes nothing, and the batch is planned again")
    func capMovedSinceGather() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.storeWithOneEvent(db)
            let stale = try await store.read(on: store.worker) { s in try QueuedEvents.gather(s, limit: 10) }.plan(
                now: Self.now)
            #expect(stale.events.first?.notifications.count == 1)
            // Another planner greeted d0 in r a minute ago.
            try await store.transaction(on: store.worker) { s in
                try s.query(
                    "INSERT INTO ledger.notification_caps (tenant, device, region, notified_at) VALUES ('acme', 'd0', 'r', ?)",
                    [.float(Self.now.timeIntervalSince1970 - 60)])
            }
            await #expect(throws: PlanningConflict.self) {
                try await store.transaction(on: store.worker) { s in try stale.apply(s) }
            }
            #expect(try await Self.log(store).isEmpty)
            // Planned again, the cap holds: logged as dropped, not sent.
            #expect(try await store.planNotifications(now: Self.now, limit: 10) == 1)
            let log = try await Self.log(store)
            #expect(log.count == 1)
            #expect(log.first?["state"] == "dropped")
            #expect(log.first?["reason"] == "cap")
            try await store.close()
        }
    }

    @Test("an event another planner took after the gather is not planned twice")
    func eventTakenSinceGather() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.storeWithOneEvent(db)
            // Opted out: the plan logs the event as dropped and moves no cap, so the write gets
            // past the caps' check to the queue's.
            var settings = DeviceNotificationSettings()
            settings.optOut = true
            try await store.putNotificationSettings(tenant: "acme", device: "d0", settings, now: Self.now)
            let stale = try await store.read(on: store.worker) { s in try QueuedEvents.gather(s, limit: 10) }.plan(
                now: Self.now)
            #expect(stale.events.first?.notifications.count == 1)
            #expect(try await store.planNotifications(now: Self.now, limit: 10) == 1)
            try await store.transaction(on: store.worker) { s in try stale.apply(s) }
            let log = try await Self.log(store)
            #expect(log.count == 1)
            #expect(log.first?["reason"] == "opted-out")
            try await store.close()
        }
    }

    /// Commits d0's second entry into r, an hour after the first: within the default cap.
    /// Returns its time.
    static func enterAgain(_ store: SQLiteStore) async throws -> Date {
        let t = now.addingTimeInterval(3_600)
        let fix = LocationFix(subject: "d0", coordinate: Coordinate(uncheckedLatitude: 1, longitude: 1), timestamp: t)
        let again = TransitionEvent(kind: .enter, regionID: "r", subject: "d0", fix: fix, time: t, crossedAt: t)
        _ = try await store.commitFixBatches(
            tenant: "acme",
            [FixBatch(device: "d0", fixes: [fix], events: [StoredEvent(id: "again", tenant: "acme", event: again)])],
            now: t)
        return t
    }

    @Test("a batch written over several transactions: its own caps are no conflict, another planner's are")
    func batchAcrossTransactions() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.storeWithOneEvent(db)
            let t = try await Self.enterAgain(store)
            let writes = try await store.read(on: store.worker) { s in try QueuedEvents.gather(s, limit: 10) }.plan(
                now: t)
            #expect(writes.events.count == 2)
            // The first event's cap, committed alone, is what the second event's plan assumed.
            try await store.transaction(on: store.worker) { s in try writes.apply(s, event: 0) }
            try await store.transaction(on: store.worker) { s in try writes.apply(s, event: 1) }
            let log = try await Self.log(store)
            #expect(log.map { $0["state"] } == ["pending", "dropped"])
            #expect(log.last?["reason"] == "cap")

            // The same two writes, with another planner moving the cap in between: the second
            // event's write refuses.
            let other = try await TestDatabase.with(.sqlite) { db2 in
                let store2 = try await Self.storeWithOneEvent(db2)
                _ = try await Self.enterAgain(store2)
                let writes2 = try await store2.read(on: store2.worker) { s in try QueuedEvents.gather(s, limit: 10) }
                    .plan(now: t)
                try await store2.transaction(on: store2.worker) { s in try writes2.apply(s, event: 0) }
                try await store2.transaction(on: store2.worker) { s in
                    try s.query(
                        "UPDATE ledger.notification_caps SET notified_at = ? WHERE tenant = 'acme' AND device = 'd0' AND region = 'r'",
                        [.float(t.timeIntervalSince1970)])
                }
                let refused: Bool
                do {
                    try await store2.transaction(on: store2.worker) { s in try writes2.apply(s, event: 1) }
                    refused = false
                } catch is PlanningConflict { refused = true }
                try await store2.close()
                return refused
            }
            #expect(other)
            try await store.close()
        }
    }
}
