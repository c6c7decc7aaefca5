import Foundation
import Geofencing
import Logging
import NIOCore
import SQLiteNIO

/// The embedded default ``ServerStore``: one SQLite file in WAL mode, created on first use,
/// schema upgraded by numbered migrations (``SQLiteStore/migrations``).
///
/// ```swift
/// let store = try await SQLiteStore.open(path: "geofence.sqlite")
/// try await store.migrate()
/// ```
///
/// One connection (``SQLiteHandle``) serves every request: each store call is one closure run
/// on the connection's own thread — one thread hop per call, however many statements — so
/// calls never interleave (SQLite admits one writer at a time anyway), and statements are
/// prepared once and reused. A fix batch is one journal row, so ingestion costs a handful of
/// statements per batch plus one per event, and concurrent batches share one transaction
/// (``commitFixBatches(tenant:_:now:)``). The notification worker has a connection and a file
/// of its own beside it (``SQLiteNotificationLedger``).
public final class SQLiteStore: ServerStore {
    let db: SQLiteHandle
    /// The notification worker's connection: the store's file read-only and the ledger's
    /// read-write (``SQLiteNotificationLedger``); `db` itself for `:memory:`.
    let worker: SQLiteHandle
    /// Checkpoints the write-ahead log off the writer's path (`nil` for `:memory:`).
    let checkpointer: SQLiteCheckpointer?
    /// Where the database lives (`:memory:` for a private in-memory one).
    public let path: String

    init(db: SQLiteHandle, worker: SQLiteHandle, checkpointer: SQLiteCheckpointer?, path: String) {
        self.db = db
        self.worker = worker
        self.checkpointer = checkpointer
        self.path = path
    }

    /// Opens (creating the file and its directory if needed) the database at `path`, committing
    /// with the durability of `synchronous`.
    public static func open(
        path: String, synchronous: SQLiteSynchronous = .normal, logger: Logger = Logger(label: "geofence.sqlite")
    ) async throws -> SQLiteStore {
        if path != ":memory:" {
            let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        let db = try SQLiteHandle(path: path)
        try await db.run { s in
            try s.query("PRAGMA journal_mode=WAL")
            try s.query(synchronous.pragma)
            try s.query("PRAGMA foreign_keys=ON")
            try s.query("PRAGMA busy_timeout=5000")
            // A fix group's transaction writes megabytes: its statement journals stay in memory
            // (not temporary files), and its pages in a cache large enough not to spill before
            // the commit (docs/server.md, "Every core for one tenant").
            try s.query("PRAGMA temp_store=MEMORY")
            try s.query("PRAGMA cache_size=-65536")
            try SQLiteStore.defineNFC(s)
        }
        var checkpointer: SQLiteCheckpointer? = nil
        if path != ":memory:" {
            let c = try await SQLiteCheckpointer(path: path)
            try await db.run { s in s.onWALCommit(inlineLimit: SQLiteCheckpointer.inlineLimit) { c.walGrew(to: $0) } }
            checkpointer = c
        }
        let worker = try await SQLiteNotificationLedger.openWorker(path: path, store: db)
        return SQLiteStore(db: db, worker: worker, checkpointer: checkpointer, path: path)
    }

    /// Records from now on, in `timings`, how requests wait for the writer's connection and how
    /// long the server's own work holds it (a server reports to its `/metrics`).
    func reportConnectionTimings(to timings: ConnectionTimings) { db.report(to: timings) }

    public func close() async throws {
        if worker !== db { await worker.close() }
        await db.close()
        await checkpointer?.close()
    }

    // MARK: Plumbing

    /// Runs `body` on the connection in one `BEGIN IMMEDIATE … COMMIT` transaction, rolled
    /// back when it throws. One thread hop, whatever the number of statements; `lane` is
    /// `.background` for the server's own work (``ConnectionThread``); `handle` is `worker` for
    /// the notification worker's (``SQLiteNotificationLedger``), the writer's `db` otherwise.
    @discardableResult
    func transaction<T: Sendable>(
        _ lane: ConnectionThread.Lane = .request, on handle: SQLiteHandle? = nil,
        _ body: @escaping @Sendable (SQLiteSession) throws -> T
    ) async throws -> T {
        try await (handle ?? db).run(lane) { s in try s.transaction { try body(s) } }
    }

    /// Runs `step` for `0..<count` in order, in background transactions that each end, after
    /// at least one step, as soon as a request's closure is waiting for the connection
    /// (``SQLiteSession/requestWaiting``): a phone's commit waits for one step, not the batch.
    /// Each step must be correct after any prefix of the steps before it is committed; when one
    /// throws, the steps committed in earlier transactions stay.
    func backgroundSteps(
        on handle: SQLiteHandle? = nil, count: Int, _ step: @escaping @Sendable (SQLiteSession, Int) throws -> Void
    ) async throws {
        var next = 0
        while next < count {
            next = try await transaction(.background, on: handle) { [next] s in
                var i = next
                repeat {
                    try step(s, i)
                    i += 1
                } while i < count && !s.requestWaiting
                return i
            }
        }
    }

    /// Runs `body` on the connection (reads: SQLite gives each statement a consistent view). On
    /// the writer's connection no write runs between the closure's statements; on the worker's,
    /// the writer's commits can.
    func read<T: Sendable>(
        _ lane: ConnectionThread.Lane = .request, on handle: SQLiteHandle? = nil,
        _ body: @escaping @Sendable (SQLiteSession) throws -> T
    ) async throws -> T {
        try await (handle ?? db).run(lane, body)
    }

    static func text(_ v: ServerJSON) -> SQLiteData { .text(String(decoding: v.encoded(), as: UTF8.self)) }
    static func parse(_ row: SQLiteResultRow, _ column: String) -> ServerJSON {
        guard let s = row.column(column)?.string, let v = try? ServerJSON.parse(Data(s.utf8)) else { return .null }
        return v
    }

    // MARK: Migrations

    /// Schema versions in order; version N is `migrations[N-1]`. Never edit a shipped one.
    static let migrations: [[String]] = [
        [
            "CREATE TABLE tenants (id TEXT PRIMARY KEY, created_at REAL NOT NULL)",
            "CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, tenant TEXT NOT NULL REFERENCES tenants(id), created_at REAL NOT NULL)",
            "CREATE TABLE regions (tenant TEXT NOT NULL, id TEXT NOT NULL, feature TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID",
            "CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL)",
            "CREATE INDEX journal_tenant ON journal (tenant, seq)",
            "CREATE TABLE devices (tenant TEXT NOT NULL, id TEXT NOT NULL, last_fix TEXT NOT NULL, last_time REAL NOT NULL, fix_count INTEGER NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID",
            "CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, event_id TEXT NOT NULL UNIQUE, device TEXT NOT NULL, body TEXT NOT NULL, created_at REAL NOT NULL)",
            "CREATE INDEX outbox_tenant ON outbox (tenant, id)",
            "CREATE TABLE webhooks (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL, created_at REAL NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)",
            "CREATE TABLE deliveries (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, webhook_id TEXT NOT NULL REFERENCES webhooks(id), event_seq INTEGER NOT NULL REFERENCES outbox(id), state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL NOT NULL, last_status INTEGER, last_error TEXT, delivered_at REAL, UNIQUE (webhook_id, event_seq))",
            "CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at)",
            "CREATE INDEX deliveries_webhook ON deliveries (tenant, webhook_id, id)",
        ],
        // Plan settings (issue 22): the tenant's document under device '' and per-device
        // overrides (SQLiteStore+Settings). A step of its own, so other migrations merge beside it.
        [SQLiteStore.settingsTable],
        // Engine snapshots and retention (issue 21): SQLiteStore+Snapshots.
        SQLiteStore.snapshotMigration,
        // Key scopes (issue 33, KeyScope): the keys made before are admin keys.
        ["ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin'"],
        // Indexes of the dashboard's event history and device list (issue 34): SQLiteStore+Browse.
        SQLiteStore.browseMigration,
        // Each device's last battery level (issue 34): SQLiteStore+Battery.
        SQLiteStore.batteryMigration,
        // Identifiers in Unicode NFC: SQLiteStore+Identifiers, IdentifierMigration.
        SQLiteStore.identifierMigration,
        // Push tokens, notification rules, the notification queue and log: SQLiteStore+Notifications.
        SQLiteStore.notificationMigration,
        // APNs provider tokens shared by the servers on one store: SQLiteStore+ProviderTokens.
        SQLiteStore.providerTokenMigration,
        // The notification log and caps move to the worker's ledger: SQLiteNotificationLedger.
        SQLiteStore.ledgerMove,
    ]

    public func migrate() async throws {
        let current = try await db.run { s in
            try s.query(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
            let rows = try s.query("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations")
            return Int(rows.first?.column("v")?.integer ?? 0)
        }
        // The ledger's tables, and its copy of a log and caps the store's file still holds,
        // commit before any migration runs: `ledgerMove` drops them there. (A store below the
        // version that made those tables has none to copy.)
        try await worker.run { s in try SQLiteNotificationLedger.prepare(s) }
        for (i, statements) in SQLiteStore.migrations.enumerated() where i + 1 > current {
            try await db.run { s in try Self.apply(s, version: i + 1, statements) }
        }
    }

    /// Runs migration `version` and records it, in one transaction.
    static func apply(_ s: SQLiteSession, version: Int, _ statements: [String]) throws {
        try s.transaction {
            if statements == SQLiteStore.identifierMigration { try SQLiteStore.refuseIdentifierCollisions(s) }
            for statement in statements { try s.query(statement) }
            try s.query(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                [.integer(version), .float(Date().timeIntervalSince1970)])
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int {
        try await read { s in
            Int(
                try s.query("SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations").first?.column("v")?.integer
                    ?? 0)
        }
    }

    // MARK: Tenants and keys

    public func addAPIKey(tenant: String, keyHash: String, scope: KeyScope, now: Date) async throws {
        try await transaction { s in
            try s.query(
                "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)",
                [.text(tenant), .float(now.timeIntervalSince1970)])
            try s.query(
                "INSERT INTO api_keys (key_hash, tenant, created_at, scope) VALUES (?, ?, ?, ?)",
                [.text(keyHash), .text(tenant), .float(now.timeIntervalSince1970), .text(scope.description)])
        }
    }

    public func grant(forKeyHash keyHash: String) async throws -> KeyGrant? {
        try await read { s -> KeyGrant? in
            guard
                let row = try s.query("SELECT tenant, scope FROM api_keys WHERE key_hash = ?", [.text(keyHash)]).first,
                let tenant = row.column("tenant")?.string,
                let scope = row.column("scope")?.string.flatMap(KeyScope.init(stored:))
            else { return nil }
            return KeyGrant(tenant: tenant, scope: scope)
        }
    }

    public func tenants() async throws -> [String] {
        try await read { s in
            try s.query("SELECT id FROM tenants UNION SELECT DISTINCT tenant AS id FROM journal ORDER BY id")
                .compactMap { $0.column("id")?.string }
        }
    }

    // MARK: Regions

    public func upsertRegions(tenant: String, _ regions: [Region], now: Date) async throws {
        let features = regions.map(RegionJSON.feature)
        try await transaction { s in
            try s.query(
                "INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)",
                [.text(tenant), .float(now.timeIntervalSince1970)])
            for (r, f) in zip(regions, features) {
                try s.query(
                    "INSERT OR REPLACE INTO regions (tenant, id, feature, updated_at) VALUES (?, ?, ?, ?)",
                    [.text(tenant), .text(r.identifier), SQLiteStore.text(f), .float(now.timeIntervalSince1970)])
            }
            try s.query(
                "INSERT INTO journal (tenant, kind, body) VALUES (?, 'upsert', ?)",
                [.text(tenant), SQLiteStore.text(.array(features))])
        }
    }

    public func deleteRegion(tenant: String, id: String, now: Date) async throws -> Bool {
        try await transaction { s in
            let existed =
                try s.query("SELECT 1 AS x FROM regions WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
                .isEmpty == false
            guard existed else { return false }
            try s.query("DELETE FROM regions WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
            try s.query("INSERT INTO journal (tenant, kind, body) VALUES (?, 'delete', ?)", [.text(tenant), .text(id)])
            return true
        }
    }

    public func region(tenant: String, id: String) async throws -> ServerJSON? {
        try await read { s in
            try s.query("SELECT feature FROM regions WHERE tenant = ? AND id = ?", [.text(tenant), .text(id)])
                .first.map { SQLiteStore.parse($0, "feature") }
        }
    }

    public func listRegions(
        tenant: String, after: String?, limit: Int
    ) async throws -> [(id: String, feature: ServerJSON)] {
        let rows = try await read { s in
            try s.query(
                "SELECT id, feature FROM regions WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?",
                [.text(tenant), .text(after ?? ""), .integer(limit)])
        }
        return rows.map { ($0.column("id")?.string ?? "", SQLiteStore.parse($0, "feature")) }
    }

    // MARK: Devices and events

    public func commitFixes(
        tenant: String, device: String, fixes: [LocationFix], events: [StoredEvent], now: Date
    ) async throws -> [StoredEvent] {
        try await commitFixBatches(tenant: tenant, [FixBatch(device: device, fixes: fixes, events: events)], now: now)[
            0]
    }

    /// `true`: ``commitFixBatches(tenant:_:now:)`` is one transaction.
    public var commitsBatchesAtomically: Bool { true }

    /// Commits the batches in one `BEGIN IMMEDIATE … COMMIT`, run as one closure on the
    /// connection's queue with statements prepared once per connection: one `journal` row per
    /// batch (in order), one `devices` upsert per device (its last fix, the fix counts summed),
    /// one `outbox` row per event, and one `INSERT … SELECT` of the deliveries of all the
    /// events × live webhooks. Empty batches write nothing and get no events.
    public func commitFixBatches(tenant: String, _ batches: [FixBatch], now: Date) async throws -> [[StoredEvent]] {
        let t = now.timeIntervalSince1970
        let live = batches.filter { !$0.fixes.isEmpty }
        guard !live.isEmpty else { return batches.map { _ in [] } }
        // Everything but the statements themselves is done before the hop to the connection.
        let journalBodies = live.map { SQLiteData.text($0.journalText) }
        var deviceOrder: [String] = []
        var perDevice: [String: (last: LocationFix, count: Int)] = [:]
        for b in live {
            let last = b.fixes[b.fixes.count - 1]
            if let seen = perDevice[b.device] {
                perDevice[b.device] = (last, seen.count + b.fixes.count)
            } else {
                deviceOrder.append(b.device)
                perDevice[b.device] = (last, b.fixes.count)
            }
        }
        let deviceRows: [[SQLiteData]] = deviceOrder.map { d in
            let (last, count) = perDevice[d]!
            return [
                .text(tenant), .text(d), .text(FixJSON.text(last)),
                .float(last.timestamp.timeIntervalSince1970), .integer(count), .float(t),
            ]
        }
        let outboxRows: [(id: String, binds: [SQLiteData])] = live.flatMap { b in
            zip(b.events, b.eventTexts).map { e, text in
                (e.id, [.text(tenant), .text(e.id), .text(b.device), .text(text), .float(t)])
            }
        }
        let cursors: [String: Int64] = try await transaction { s in
            for body in journalBodies {
                try s.query("INSERT INTO journal (tenant, kind, body) VALUES (?, 'fixes', ?)", [.text(tenant), body])
            }
            for row in deviceRows {
                try s.query(
                    """
                    INSERT INTO devices (tenant, id, last_fix, last_time, fix_count, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (tenant, id) DO UPDATE SET last_fix = excluded.last_fix, last_time = excluded.last_time,
                      fix_count = fix_count + excluded.fix_count, updated_at = excluded.updated_at
                    """, row)
            }
            guard !outboxRows.isEmpty else { return [:] }
            var ids: [String: Int64] = [:]
            ids.reserveCapacity(outboxRows.count)
            var low = Int64.max
            var high = Int64.min
            for row in outboxRows {
                let id = Int64(
                    try s.query(
                        "INSERT INTO outbox (tenant, event_id, device, body, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
                        row.binds
                    ).first?.column("id")?.integer ?? 0)
                ids[row.id] = id
                low = min(low, id)
                high = max(high, id)
            }
            // The outbox ids of this transaction are exactly low…high: it is the only writer.
            try s.query(
                """
                INSERT INTO deliveries (tenant, webhook_id, event_seq, state, attempts, next_attempt_at)
                SELECT w.tenant, w.id, o.id, 'pending', 0, ? FROM outbox o JOIN webhooks w ON w.tenant = o.tenant AND w.deleted = 0
                WHERE o.tenant = ? AND o.id BETWEEN ? AND ? ORDER BY o.id, w.created_at, w.id
                """, [.float(t), .text(tenant), .integer(Int(low)), .integer(Int(high))])
            return ids
        }
        return batches.map { $0.events(withCursors: cursors) }
    }

    public func events(tenant: String, after cursor: Int64, limit: Int) async throws -> [ServerJSON] {
        let rows = try await read { s in
            try s.query(
                "SELECT id, body FROM outbox WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?",
                [.text(tenant), .integer(Int(cursor)), .integer(limit)])
        }
        return rows.map { SQLiteStore.withCursor(SQLiteStore.parse($0, "body"), $0.column("id")?.integer ?? 0) }
    }

    static func withCursor(_ v: ServerJSON, _ cursor: Int) -> ServerJSON {
        guard case .object(var o) = v else { return v }
        o["cursor"] = .string(String(cursor))
        return .object(o)
    }

    public func journal(tenant: String) async throws -> [JournalEntry] {
        let rows = try await read { s in
            try s.query("SELECT kind, body FROM journal WHERE tenant = ? ORDER BY seq", [.text(tenant)])
        }
        return try rows.map { row in
            try JournalEntry.decode(
                kind: row.column("kind")?.string ?? "", body: row.column("body")?.string ?? "", tenant: tenant)
        }
    }

    // MARK: Webhooks

    public func addWebhook(_ webhook: Webhook, now: Date) async throws {
        try await transaction { s in
            try s.query(
                "INSERT INTO webhooks (id, tenant, url, secret, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(webhook.id), .text(webhook.tenant), .text(webhook.url), .text(webhook.secret),
                    .float(now.timeIntervalSince1970),
                ])
        }
    }

    public func webhooks(tenant: String) async throws -> [Webhook] {
        try await read { s in
            try s.query(
                "SELECT id, url, secret FROM webhooks WHERE tenant = ? AND deleted = 0 ORDER BY created_at, id",
                [.text(tenant)]
            )
            .map {
                Webhook(
                    id: $0.column("id")?.string ?? "", tenant: tenant, url: $0.column("url")?.string ?? "",
                    secret: $0.column("secret")?.string ?? "")
            }
        }
    }

    public func deleteWebhook(tenant: String, id: String) async throws -> Bool {
        try await transaction { s in
            let rows = try s.query(
                "UPDATE webhooks SET deleted = 1 WHERE tenant = ? AND id = ? AND deleted = 0 RETURNING id",
                [.text(tenant), .text(id)])
            try s.query(
                "UPDATE deliveries SET state = 'cancelled' WHERE tenant = ? AND webhook_id = ? AND state = 'pending'",
                [.text(tenant), .text(id)])
            return !rows.isEmpty
        }
    }

    public func dueDeliveries(now: Date, limit: Int) async throws -> [DueDelivery] {
        let rows = try await read { s in
            try s.query(
                """
                SELECT d.id AS id, d.attempts AS attempts, o.id AS seq, o.event_id AS event_id, o.body AS body,
                       w.url AS url, w.secret AS secret
                FROM deliveries d JOIN outbox o ON o.id = d.event_seq JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at, d.id LIMIT ?
                """, [.float(now.timeIntervalSince1970), .integer(limit)])
        }
        return rows.map { row in
            let body = SQLiteStore.withCursor(SQLiteStore.parse(row, "body"), row.column("seq")?.integer ?? 0)
            return DueDelivery(
                id: Int64(row.column("id")?.integer ?? 0), eventID: row.column("event_id")?.string ?? "",
                attempts: Int(row.column("attempts")?.integer ?? 0), url: row.column("url")?.string ?? "",
                secret: row.column("secret")?.string ?? "", body: body.encoded())
        }
    }

    public func recordAttempt(deliveryID: Int64, outcome: DeliveryOutcome, now: Date) async throws {
        let t = now.timeIntervalSince1970
        try await transaction { s in
            switch outcome {
            case .delivered(let status):
                try s.query(
                    """
                    UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL,
                      delivered_at = ? WHERE id = ? AND state = 'pending'
                    """, [.integer(status), .float(t), .integer(Int(deliveryID))])
            case .failed(let status, let error, let next):
                try s.query(
                    """
                    UPDATE deliveries SET state = ?, attempts = attempts + 1, last_status = ?, last_error = ?,
                      next_attempt_at = ? WHERE id = ? AND state = 'pending'
                    """,
                    [
                        .text(next == nil ? "failed" : "pending"), status.map { .integer($0) } ?? .null, .text(error),
                        .float(next?.timeIntervalSince1970 ?? t), .integer(Int(deliveryID)),
                    ])
            }
        }
    }

    public func deliveries(tenant: String, webhookID: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        let rows = try await read { s in
            try s.query(
                """
                SELECT d.id AS id, o.event_id AS event_id, d.state AS state, d.attempts AS attempts, d.last_status AS last_status,
                       d.last_error AS last_error, d.next_attempt_at AS next_at, d.delivered_at AS delivered_at
                FROM deliveries d JOIN outbox o ON o.id = d.event_seq
                WHERE d.tenant = ? AND d.webhook_id = ? AND d.id > ? ORDER BY d.id LIMIT ?
                """, [.text(tenant), .text(webhookID), .integer(Int(after)), .integer(limit)])
        }
        return rows.map { row in
            var o: [String: ServerJSON] = [
                "id": .string(String(row.column("id")?.integer ?? 0)),
                "eventId": .string(row.column("event_id")?.string ?? ""),
                "state": .string(row.column("state")?.string ?? ""),
                "attempts": .number(Double(row.column("attempts")?.integer ?? 0)),
            ]
            if let s = row.column("last_status")?.integer { o["lastStatus"] = .number(Double(s)) }
            if let e = row.column("last_error")?.string { o["lastError"] = .string(e) }
            if let d = row.column("delivered_at")?.double {
                o["deliveredAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: d)))
            } else if row.column("state")?.string == "pending", let n = row.column("next_at")?.double {
                o["nextAttemptAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: n)))
            }
            return .object(o)
        }
    }
}

/// Storage failures that are not the client's fault.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case corruptJournal(tenant: String)
    /// Another instance changed the tenant's regions since this process's engine was built:
    /// nothing was written; rebuild the engine from the journal and try again.
    case staleView(tenant: String)
    /// Another instance committed fixes of this device since this process's engine last saw
    /// it (the regions are unchanged): nothing was written; catch the device up
    /// (``ServerStore/newerBatches(tenant:device:)``) and try again.
    case staleDevice(tenant: String, device: String)

    public var description: String {
        switch self {
        case .corruptJournal(let t): "the journal of tenant \"\(t)\" cannot be read"
        case .staleView(let t): "another instance changed tenant \"\(t)\"; rebuild its engine and retry"
        case .staleDevice(let t, let d):
            "another instance moved device \"\(d)\" of tenant \"\(t)\" on; catch it up and retry"
        }
    }
}
