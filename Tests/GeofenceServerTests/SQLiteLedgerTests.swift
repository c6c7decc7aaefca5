import Dispatch
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import GeofenceServer

/// The notification worker writes its own file (the ledger) on its own connection, so the
/// connection the phones' commits wait for is not held by planning; the two files do not
/// commit together, and every way of stopping between them must plan each event once.
@Suite("SQLite: the notification worker's ledger")
struct SQLiteLedgerTests {
    static let now = SQLitePlanningTests.now

    static func queued(_ store: SQLiteStore) async throws -> Int {
        try await store.read { s in
            try s.query("SELECT COUNT(*) AS n FROM notification_queue").first?.column("n")?.integer ?? -1
        }
    }

    static func planned(_ store: SQLiteStore) async throws -> Int {
        try await store.read(on: store.worker) { s in
            try s.query("SELECT COUNT(*) AS n FROM ledger.planned_events").first?.column("n")?.integer ?? -1
        }
    }

    @Test("planning needs the writer's connection only to settle: the log fills while a request holds it")
    func planningBesideTheWriter() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await SQLitePlanningTests.storeWithOneEvent(db)
            // A request that holds the writer's connection until released.
            let release = DispatchSemaphore(value: 0)
            let held = NIOLockedValueBox(false)
            let holding = Task {
                try await store.read { _ in
                    held.withLockedValue { $0 = true }
                    release.wait()
                }
            }
            #expect(try await CrashSafetyTests.wait(timeout: .seconds(30)) { held.withLockedValue { $0 } })
            let planning = Task { try await store.planNotifications(now: Self.now, limit: 10) }
            let logged = try await CrashSafetyTests.wait(timeout: .seconds(30)) {
                (try? await SQLitePlanningTests.log(store).count) == 1
            }
            release.signal()
            #expect(logged, "the worker's writes waited for the writer's connection")
            try await holding.value
            #expect(try await planning.value == 1)
            // Settled: off the queue, and forgotten in the ledger.
            #expect(try await Self.queued(store) == 0)
            #expect(try await Self.planned(store) == 0)
            try await store.close()
        }
    }

    @Test(
        "planned, then stopped before the queue forgot it: not planned again, and settled by the next round",
        arguments: [false, true])
    func stoppedBetweenTheFiles(inMemory: Bool) async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await SQLitePlanningTests.storeWithEvents(
                at: inMemory ? ":memory:" : db.location, count: 3)
            // The ledger's half of planning, without the settling that follows it.
            let writes = try await store.read(on: store.worker) { s in try QueuedEvents.gather(s, limit: 2) }
                .plan(now: Self.now)
            try await store.transaction(on: store.worker) { s in try writes.apply(s) }
            #expect(try await Self.queued(store) == 3)
            #expect(try await Self.planned(store) == 2)
            // The next round plans the third event only, and settles all three.
            #expect(try await store.planNotifications(now: Self.now, limit: 10) == 1)
            #expect(try await Self.queued(store) == 0)
            #expect(try await Self.planned(store) == 0)
            #expect(try await store.planNotifications(now: Self.now, limit: 10) == 0)
            for device in ["d0", "d1", "d2"] {
                let log = try await store.notificationLog(tenant: "acme", device: device, after: 0, limit: 10)
                #expect(log.count == 1, "\(device): \(log)")
            }
            try await store.close()
        }
    }

    @Test("a store from before the ledger: its log and caps move with their ids, once, and leave its file")
    func movedFromTheStoresFile() async throws {
        let path = Harness.temporaryDatabase()
        let old = try await SQLiteStore.open(path: path)
        // The schema as the version before the ledger left it, with one notification and one cap.
        try await old.db.run { s in
            try s.query("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
            for (i, statements) in SQLiteStore.migrations.enumerated() where statements != SQLiteStore.ledgerMove {
                try SQLiteStore.apply(s, version: i + 1, statements)
            }
            try s.query(
                """
                INSERT INTO notifications (id, tenant, device, event_id, rule_id, token, service, service_name,
                  message_id, content, state, next_attempt_at, created_at)
                VALUES (7, 'acme', 'd0', 'e1', 'r1', 'tok', 'apns', 'com.x', 'm1', '{}', 'delivered', 0, 0)
                """)
            try s.query(
                "INSERT INTO notification_caps (tenant, device, region, notified_at) VALUES ('acme', 'd0', 'r', 5)")
        }
        #expect(try await old.schemaVersion() == SQLiteStore.migrations.count - 1)
        // Copied once already by a start that stopped before the store's file dropped them.
        try await old.worker.run { s in try SQLiteNotificationLedger.prepare(s) }
        try await old.close()

        let store = try await SQLiteStore.open(path: path)
        try await store.migrate()
        #expect(try await store.schemaVersion() == SQLiteStore.migrations.count)
        let log = try await store.notificationLog(tenant: "acme", device: "d0", after: 0, limit: 10)
        #expect(log.count == 1)
        #expect(log.first?["id"] == "7")
        let cap = try await store.read(on: store.worker) { s in
            try s.query("SELECT notified_at FROM ledger.notification_caps").map { $0.column("notified_at")?.double }
        }
        #expect(cap == [5])
        let left = try await store.read { s in
            try s.query(
                "SELECT name FROM sqlite_master WHERE name IN ('notifications', 'notification_caps')"
            ).count
        }
        #expect(left == 0)
        try await store.close()
    }

    @Test("a file name with ?, #, %, spaces and accents: the worker opens that file, read-only")
    func awkwardFileName() async throws {
        let dir = URL(fileURLWithPath: Harness.temporaryDatabase()).deletingLastPathComponent()
        let path = dir.appendingPathComponent("a b?c#d%20é.sqlite").path
        let store = try await SQLitePlanningTests.storeWithEvents(at: path, count: 1)
        #expect(try await store.planNotifications(now: Self.now, limit: 10) == 1)
        #expect(try await SQLitePlanningTests.log(store).count == 1)
        #expect(FileManager.default.fileExists(atPath: path + "-notifications"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(names.allSatisfy { $0.hasPrefix("a b?c#d%20é.sqlite") }, "\(names)")
        // The worker cannot write the store's file.
        await #expect(throws: SQLiteFailure.self) {
            try await store.transaction(on: store.worker) { s in try s.query("DELETE FROM notification_rules") }
        }
        try await store.close()
    }
}
