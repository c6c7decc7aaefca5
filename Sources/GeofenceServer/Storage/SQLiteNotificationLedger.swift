import Foundation
import SQLiteNIO

/// The notification worker's own database file and connection, so that its commits never hold
/// the connection every phone's commit waits for.
///
/// The store's file keeps what a request writes: push tokens, rules, settings, and the queue
/// that the outbox trigger fills in the event's own transaction. The ledger file
/// (`<path>-notifications`, schema `ledger`) keeps what the worker writes: the notification
/// log (`ledger.notifications`), the caps' memory (`ledger.notification_caps`) and the events
/// it has planned (`ledger.planned_events`).
///
/// The worker's connection opens the store's file read-only (`mode=ro`) and attaches the
/// ledger read-write, so its `BEGIN IMMEDIATE` locks the ledger only: its transactions read the
/// queue, rules and tokens in a snapshot beside the writer (WAL) and commit to the ledger. The
/// two files do not commit together, so the hand-over is made safe in steps
/// (``SQLiteStore/settlePlannedEvents()``): an event is planned once, because its
/// `planned_events` row commits with its notifications; its queue row is deleted only after;
/// and the `planned_events` row only after that.
///
/// A `:memory:` store has no file to share: there the ledger is an in-memory database attached
/// to the store's one connection, under the same schema name, so the same SQL runs on both.
enum SQLiteNotificationLedger {
    /// The schema name the worker's SQL gives the ledger's tables.
    static let schema = "ledger"

    /// The ledger's file beside the store's `path` (`nil` for `:memory:`).
    static func path(besides path: String) -> String? {
        path == ":memory:" ? nil : URL(fileURLWithPath: path).path + "-notifications"
    }

    /// Opens the worker's connection for the store at `path` (already open, in WAL mode), or,
    /// for `:memory:`, attaches the ledger to `store`'s connection and returns it.
    ///
    /// The ledger commits with `synchronous=FULL`, whatever the store's setting: a planned
    /// event's queue row is deleted from the store's file once its ledger row has committed,
    /// and with `NORMAL` a power loss could keep that deletion and lose the ledger's commit
    /// before it, and with it the notification.
    static func openWorker(path: String, store: SQLiteHandle) async throws -> SQLiteHandle {
        guard let ledger = Self.path(besides: path) else {
            _ = try await store.run { s in try s.query("ATTACH DATABASE ':memory:' AS \(schema)") }
            return store
        }
        let worker = try SQLiteHandle(
            path: readOnlyURI(URL(fileURLWithPath: path).path), uri: true, threadName: "geofence-sqlite-worker")
        try await worker.run { s in
            try s.query("PRAGMA busy_timeout=5000")
            try s.query("PRAGMA temp_store=MEMORY")
            try s.query("ATTACH DATABASE ? AS \(schema)", [.text(ledger)])
            try s.query("PRAGMA \(schema).journal_mode=WAL")
            try s.query("PRAGMA \(schema).synchronous=FULL")
        }
        return worker
    }

    /// `file:` URI of an absolute `path`, read-only. Every byte but the unreserved ones and `/`
    /// is percent-encoded, so `?`, `#` and `%` in a file name stay part of it.
    static func readOnlyURI(_ path: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
        return "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?mode=ro"
    }

    /// The ledger's tables. Idempotent: they are created at every start, before the store's
    /// migrations.
    static let tables = [
        "CREATE TABLE IF NOT EXISTS ledger.notifications (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, device TEXT NOT NULL, event_id TEXT NOT NULL, rule_id TEXT NOT NULL, token TEXT NOT NULL, service TEXT NOT NULL, service_name TEXT NOT NULL, environment TEXT, message_id TEXT NOT NULL, content TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL NOT NULL, service_id TEXT, created_at REAL NOT NULL, sent_at REAL, UNIQUE (event_id, token))",
        "CREATE INDEX IF NOT EXISTS ledger.notifications_due ON notifications (next_attempt_at, id) WHERE state = 'pending'",
        "CREATE INDEX IF NOT EXISTS ledger.notifications_device ON notifications (tenant, device, id)",
        "CREATE TABLE IF NOT EXISTS ledger.notification_caps (tenant TEXT NOT NULL, device TEXT NOT NULL, region TEXT NOT NULL, notified_at REAL NOT NULL, PRIMARY KEY (tenant, device, region)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS ledger.planned_events (outbox_id INTEGER PRIMARY KEY)",
    ]

    static let logColumns =
        "id, tenant, device, event_id, rule_id, token, service, service_name, environment, message_id, content, state, reason, attempts, next_attempt_at, service_id, created_at, sent_at"

    /// Creates the ledger's tables and copies into them the log and caps a store kept in its
    /// own file before (``SQLiteStore/ledgerMove``, which drops them there once copied). Runs on
    /// the worker's connection; copying again after a crash changes nothing (`OR IGNORE`).
    static func prepare(_ s: SQLiteSession) throws {
        try s.transaction {
            for statement in tables { try s.query(statement) }
            let old = try s.query(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name IN ('notifications', 'notification_caps')"
            ).compactMap { $0.column("name")?.string }
            if old.contains("notifications") {
                try s.query(
                    "INSERT OR IGNORE INTO ledger.notifications (\(logColumns)) SELECT \(logColumns) FROM main.notifications"
                )
            }
            if old.contains("notification_caps") {
                try s.query(
                    """
                    INSERT OR IGNORE INTO ledger.notification_caps (tenant, device, region, notified_at)
                    SELECT tenant, device, region, notified_at FROM main.notification_caps
                    """)
            }
        }
    }
}

extension SQLiteStore {
    /// Drops the log and caps from the store's file, after ``SQLiteNotificationLedger/prepare(_:)``
    /// copied them into the ledger.
    static let ledgerMove = [
        "DROP TABLE IF EXISTS notifications",
        "DROP TABLE IF EXISTS notification_caps",
    ]

    /// The most planned events one settling takes off the queue.
    static let settleLimit = 4_096

    /// Takes planned events off the store's queue, then forgets them in the ledger: one delete
    /// on the writer's connection for the whole batch (in the background lane), not one per
    /// event. Also finishes what a crash between the two steps left.
    func settlePlannedEvents() async throws {
        let planned = try await worker.run(.background) { s in
            try s.query(
                "SELECT outbox_id FROM ledger.planned_events ORDER BY outbox_id LIMIT ?", [.integer(Self.settleLimit)]
            ).compactMap { $0.column("outbox_id")?.integer }
        }
        guard !planned.isEmpty else { return }
        await Failpoints.reach(.notificationPlanned, detail: "events \(planned.count)")
        let ids = SQLiteData.text("[" + planned.map(String.init).joined(separator: ",") + "]")
        try await transaction(.background) { s in
            try s.query("DELETE FROM notification_queue WHERE outbox_id IN (SELECT value FROM json_each(?))", [ids])
        }
        await Failpoints.reach(.notificationUnqueued, detail: "events \(planned.count)")
        // A row goes only once its event is off the queue: while the queue still holds it, the
        // row is what keeps the event from being planned again.
        _ = try await worker.run(.background) { s in
            try s.transaction {
                try s.query(
                    """
                    DELETE FROM ledger.planned_events WHERE outbox_id IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM notification_queue q WHERE q.outbox_id = planned_events.outbox_id)
                    """, [ids])
            }
        }
    }
}
