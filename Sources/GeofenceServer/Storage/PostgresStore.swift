import Foundation
import Geofencing
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The ``ServerStore`` for scale-out: PostgreSQL through a postgres-nio connection pool, shared
/// by any number of `geofence serve` instances.
///
/// ```swift
/// let store = try await PostgresStore.open(url: "postgres://geofence:secret@127.0.0.1:5432/geofence")
/// try await store.migrate()
/// // … GeofenceServer(configuration:store:) …
/// try await store.close()
/// ```
///
/// Same tables and meaning as ``SQLiteStore`` (migrations numbered in
/// ``PostgresStore/migrations``, applied under an advisory lock so instances starting together
/// do not race). What makes several instances safe (docs/server.md, "Consistency"):
/// - **Per-device serialisation.** A fix batch commits under
///   `pg_advisory_xact_lock(2, hashtext(tenant/device))` and checks the device row's `version`
///   against the version this process's engine was built from. A mismatch means another
///   instance moved the device on: the commit rolls back with
///   ``StoreError/staleDevice(tenant:device:)`` and the runtime rebuilds its engine and
///   recomputes the batch. So every batch's events come from the device's full, committed
///   history: none duplicated, none lost. To make that race rare, the runtime first applies
///   the device's batches committed elsewhere (``newerBatches(tenant:device:)``, one query).
/// - **Region changes** take the tenant's advisory lock exclusively and bump
///   `tenants.region_version`; fix commits hold it shared and check the version too. Other
///   instances see the bump through ``changedTenants()`` (polled) and rebuild.
/// - **Event cursors** are allocated per tenant from a row locked until commit
///   (`event_cursors`), so cursors appear in commit order and a reader paging with
///   `after=cursor` never skips an event that commits late.
/// - **Webhook deliveries** are claimed with `FOR UPDATE SKIP LOCKED` and leased for
///   ``deliveryLeaseSeconds``, so two instances never send the same delivery at once.
///
/// Cost: a group commit of fix batches — however many batches and events — is one statement,
/// one round trip (`PostgresStore+Commit`); a batch of a device that other instances write too
/// adds one catch-up query; a device that moved on elsewhere costs the replay of the
/// batches missed (O(batches missed)); a region change elsewhere, or a commit race on one
/// device, a journal replay of the tenant. Route
/// a device's fixes to one instance when you can (hash on the device id): conflicts stay rare. Not done here: read replicas,
/// partitioning devices over several databases (docs/server.md describes how).
public final class PostgresStore: ServerStore {
    let client: PostgresClient
    let runTask: Task<Void, Never>
    let logger: Logger
    /// Versions this process's engines were built from, per tenant (see the type's manual).
    let views = NIOLockedValueBox<[String: TenantView]>([:])
    /// Always: several instances may share the database.
    public var isShared: Bool { true }
    /// How long a claimed webhook delivery stays invisible to other instances, in seconds.
    public static let deliveryLeaseSeconds: Double = 300

    struct TenantView: Sendable {
        var regionVersion: Int = 0
        var devices: [String: Int] = [:]
    }

    /// The tenant's region version and every device's version, as transaction `c` sees them.
    static func readView(_ c: PostgresConnection, tenant: String, logger: Logger) async throws -> TenantView {
        var view = TenantView()
        view.regionVersion =
            try await run(c, "SELECT region_version FROM tenants WHERE id = \(tenant)", logger)
            .first?.decode(Int.self) ?? 0
        for row in try await run(c, "SELECT id, version FROM devices WHERE tenant = \(tenant)", logger) {
            let (id, v) = try row.decode((String, Int).self)
            view.devices[id] = v
        }
        return view
    }

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        self.runTask = Task { await client.run() }
    }

    /// Connects to the database named by a `postgres://user:password@host:port/database` URL
    /// (`postgresql://` too; `?sslmode=require` for TLS with certificate verification, otherwise
    /// plain TCP). Connections are opened on demand, at most `maximumConnections`.
    /// - Throws: ``ConfigurationError`` (key `database`) naming what is wrong with the URL.
    public static func open(
        url: String, maximumConnections: Int = 20,
        logger: Logger = Logger(label: "geofence.postgres")
    ) async throws -> PostgresStore {
        let target = try PostgresURL(url)
        var config = PostgresClient.Configuration(
            host: target.host, port: target.port, username: target.user,
            password: target.password, database: target.database,
            tls: target.requireTLS ? .require(.makeClientConfiguration()) : .disable)
        config.options.maximumConnections = max(2, maximumConnections)
        // Two connections stay open, and idle connections are not pinged: the pool then parks a
        // connection after each query without starting timer tasks (an idle-timeout and a
        // keep-alive timer per release otherwise — a few tasks per group commit, measurable at
        // thousands of commits per second). A connection the network dropped is found at its
        // next use: that query fails (nothing acknowledged) and the pool opens a new one.
        config.options.minimumConnections = 2
        config.options.keepAliveBehavior = nil
        config.options.connectTimeout = .seconds(10)
        config.options.additionalStartupParameters = [("application_name", "geofence")]
        if let path = target.searchPath { config.options.additionalStartupParameters.append(("search_path", path)) }
        let store = PostgresStore(
            client: PostgresClient(configuration: config, backgroundLogger: logger), logger: logger)
        // Let the pool's run task start before the first lease (the pool would queue it anyway,
        // with a warning in the log).
        for _ in 0..<4 { await Task.yield() }
        do { _ = try await store.client.query("SELECT 1", logger: logger) } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    public func close() async throws {
        runTask.cancel()
        await runTask.value
    }

    // MARK: Plumbing

    @discardableResult
    static func run(_ c: PostgresConnection, _ q: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await c.query(q, logger: logger).collect()
    }

    @discardableResult
    func query(_ q: PostgresQuery) async throws -> [PostgresRow] {
        try await client.query(q, logger: logger).collect()
    }

    /// Runs `body` in one READ COMMITTED transaction (rolled back when it throws, with the
    /// body's own error rethrown so callers can match ``StoreError``).
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { c in
                try await c.withTransaction(logger: logger) { c in try await body(c) }
            }
        } catch let e as PostgresTransactionError {
            if let inner = e.closureError, e.rollbackError == nil { throw inner }
            throw e
        }
    }

    static func text(_ v: ServerJSON) -> String { String(decoding: v.encoded(), as: UTF8.self) }
    static func parse(_ s: String?) -> ServerJSON {
        guard let s, let v = try? ServerJSON.parse(Data(s.utf8)) else { return .null }
        return v
    }

    func view(_ tenant: String) -> TenantView { views.withLockedValue { $0[tenant] ?? TenantView() } }

    // MARK: Migrations

    /// Schema versions in order; version N is `migrations[N-1]`. Never edit a shipped one.
    /// Text keys use the "C" collation so that paging by id orders bytes as SQLite does.
    static let migrations: [[String]] = [
        [
            #"CREATE TABLE tenants (id TEXT COLLATE "C" PRIMARY KEY, created_at DOUBLE PRECISION NOT NULL, region_version BIGINT NOT NULL DEFAULT 0)"#,
            #"CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL REFERENCES tenants(id), created_at DOUBLE PRECISION NOT NULL)"#,
            #"CREATE TABLE regions (tenant TEXT COLLATE "C" NOT NULL, id TEXT COLLATE "C" NOT NULL, feature TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, id))"#,
            #"CREATE TABLE journal (seq BIGSERIAL PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, kind TEXT NOT NULL, device TEXT COLLATE "C", device_version BIGINT, body TEXT NOT NULL)"#,
            "CREATE INDEX journal_tenant ON journal (tenant, seq)",
            "CREATE INDEX journal_device ON journal (tenant, device, device_version) WHERE device IS NOT NULL",
            #"CREATE TABLE devices (tenant TEXT COLLATE "C" NOT NULL, id TEXT COLLATE "C" NOT NULL, last_fix TEXT NOT NULL, last_time DOUBLE PRECISION NOT NULL, fix_count BIGINT NOT NULL, version BIGINT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, id))"#,
            #"CREATE TABLE event_cursors (tenant TEXT COLLATE "C" PRIMARY KEY, seq BIGINT NOT NULL)"#,
            #"CREATE TABLE outbox (id BIGSERIAL PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, cursor BIGINT NOT NULL, event_id TEXT NOT NULL UNIQUE, device TEXT NOT NULL, body TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, UNIQUE (tenant, cursor))"#,
            #"CREATE TABLE webhooks (id TEXT PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, url TEXT NOT NULL, secret TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, deleted BOOLEAN NOT NULL DEFAULT FALSE)"#,
            #"CREATE TABLE deliveries (id BIGSERIAL PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, webhook_id TEXT NOT NULL REFERENCES webhooks(id), event_seq BIGINT NOT NULL REFERENCES outbox(id), state TEXT NOT NULL, attempts BIGINT NOT NULL DEFAULT 0, next_attempt_at DOUBLE PRECISION NOT NULL, last_status BIGINT, last_error TEXT, delivered_at DOUBLE PRECISION, UNIQUE (webhook_id, event_seq))"#,
            "CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at)",
            "CREATE INDEX deliveries_webhook ON deliveries (tenant, webhook_id, id)",
        ],
        // 2: a group commit of fix batches as one function call — one round trip (PostgresStore+Commit).
        // A later change to the function must use CREATE OR REPLACE (same OID): running servers
        // hold prepared statements that name it.
        [commitFunction],
        // Plan settings (issue 22): the tenant's document under device '' and per-device
        // overrides (PostgresStore+Settings). A step of its own, so other migrations merge beside it.
        [settingsTable],
        // Engine snapshots and retention (issue 21): PostgresStore+Snapshots.
        snapshotMigration,
        // Key scopes (issue 33, KeyScope): the keys made before are admin keys.
        ["ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'admin'"],
        // Indexes of the dashboard's event history and device list (issue 34): PostgresStore+Browse.
        browseMigration,
        // Each device's last battery level (issue 34): PostgresStore+Battery.
        batteryMigration,
        // Identifiers in Unicode NFC: PostgresStore+Identifiers, IdentifierMigration.
        identifierMigration,
        // Push tokens, notification rules, the notification queue and log: PostgresStore+Notifications.
        notificationMigration,
        // APNs provider tokens shared by the servers on one store: PostgresStore+ProviderTokens.
        providerTokenMigration,
    ]

    public func migrate() async throws {
        let now = Date().timeIntervalSince1970
        try await transaction { c in
            // One instance migrates at a time; the others wait here, then find nothing to do.
            try await Self.run(c, "SELECT pg_advisory_xact_lock(0, 1)", logger)
            try await Self.run(
                c,
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)",
                logger)
            let current =
                try await Self.run(c, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger)
                .first?.decode(Int.self) ?? 0
            for (i, statements) in Self.migrations.enumerated() where i + 1 > current {
                if statements == Self.identifierMigration {
                    try await Self.refuseIdentifierCollisions(c, logger: logger)
                }
                for s in statements { try await Self.run(c, PostgresQuery(unsafeSQL: s), logger) }
                try await Self.run(
                    c, "INSERT INTO schema_migrations (version, applied_at) VALUES (\(i + 1), \(now))", logger)
            }
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int {
        try await query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").first?.decode(Int.self) ?? 0
    }

    // MARK: Tenants and keys

    public func addAPIKey(tenant: String, keyHash: String, scope: KeyScope, now: Date) async throws {
        let t = now.timeIntervalSince1970
        let scope = scope.description
        try await transaction { c in
            try await Self.run(
                c, "INSERT INTO tenants (id, created_at) VALUES (\(tenant), \(t)) ON CONFLICT (id) DO NOTHING", logger)
            try await Self.run(
                c,
                "INSERT INTO api_keys (key_hash, tenant, created_at, scope) VALUES (\(keyHash), \(tenant), \(t), \(scope))",
                logger)
        }
    }

    public func grant(forKeyHash keyHash: String) async throws -> KeyGrant? {
        guard let row = try await query("SELECT tenant, scope FROM api_keys WHERE key_hash = \(keyHash)").first else {
            return nil
        }
        let (tenant, stored) = try row.decode((String, String).self)
        return KeyScope(stored: stored).map { KeyGrant(tenant: tenant, scope: $0) }
    }

    public func tenants() async throws -> [String] {
        try await query("SELECT id FROM tenants UNION SELECT DISTINCT tenant AS id FROM journal ORDER BY id")
            .map { try $0.decode(String.self) }
    }

    // MARK: Regions

    /// Takes the tenant's exclusive lock, checks this process saw the latest region version,
    /// bumps it, runs `body`; records the new version once committed.
    func regionChange<T: Sendable>(
        tenant: String, now: Date, _ body: (PostgresConnection) async throws -> T?
    ) async throws -> T? {
        let expected = view(tenant).regionVersion
        let t = now.timeIntervalSince1970
        let result: (T, Int)? = try await transaction { c in
            try await Self.run(c, "SELECT pg_advisory_xact_lock(1, hashtext(\(tenant)))", logger)
            let current =
                try await Self.run(c, "SELECT region_version FROM tenants WHERE id = \(tenant)", logger)
                .first?.decode(Int.self) ?? 0
            guard current == expected else { throw StoreError.staleView(tenant: tenant) }
            guard let r = try await body(c) else { return nil }
            let v =
                try await Self.run(
                    c,
                    """
                    INSERT INTO tenants (id, created_at, region_version) VALUES (\(tenant), \(t), 1)
                    ON CONFLICT (id) DO UPDATE SET region_version = tenants.region_version + 1 RETURNING region_version
                    """, logger
                ).first?.decode(Int.self) ?? 0
            return (r, v)
        }
        guard let (r, v) = result else { return nil }
        views.withLockedValue { $0[tenant, default: TenantView()].regionVersion = v }
        return r
    }

    public func upsertRegions(tenant: String, _ regions: [Region], now: Date) async throws {
        let features = regions.map(RegionJSON.feature)
        let t = now.timeIntervalSince1970
        _ = try await regionChange(tenant: tenant, now: now) { c -> Bool? in
            // One statement per 1,000 regions (unnest of arrays) keeps bulk imports fast.
            var start = 0
            while start < regions.count {
                let end = min(start + 1_000, regions.count)
                let ids = regions[start..<end].map(\.identifier)
                let bodies = features[start..<end].map(Self.text)
                try await Self.run(
                    c,
                    """
                    INSERT INTO regions (tenant, id, feature, updated_at)
                    SELECT \(tenant), r.id, r.feature, \(t) FROM unnest(\(ids)::text[], \(bodies)::text[]) AS r(id, feature)
                    ON CONFLICT (tenant, id) DO UPDATE SET feature = excluded.feature, updated_at = excluded.updated_at
                    """, logger)
                start = end
            }
            try await Self.run(
                c,
                "INSERT INTO journal (tenant, kind, body) VALUES (\(tenant), 'upsert', \(Self.text(.array(features))))",
                logger)
            return true
        }
    }

    public func deleteRegion(tenant: String, id: String, now: Date) async throws -> Bool {
        try await regionChange(tenant: tenant, now: now) { c -> Bool? in
            let gone = try await Self.run(
                c, "DELETE FROM regions WHERE tenant = \(tenant) AND id = \(id) RETURNING id", logger)
            guard !gone.isEmpty else { return nil }
            try await Self.run(
                c, "INSERT INTO journal (tenant, kind, body) VALUES (\(tenant), 'delete', \(id))", logger)
            return true
        } ?? false
    }

    public func region(tenant: String, id: String) async throws -> ServerJSON? {
        try await query("SELECT feature FROM regions WHERE tenant = \(tenant) AND id = \(id)")
            .first.map { Self.parse(try $0.decode(String.self)) }
    }

    public func listRegions(
        tenant: String, after: String?, limit: Int
    ) async throws -> [(id: String, feature: ServerJSON)] {
        try await query(
            "SELECT id, feature FROM regions WHERE tenant = \(tenant) AND id > \(after ?? "") ORDER BY id LIMIT \(limit)"
        )
        .map { row in
            let (id, f) = try row.decode((String, String).self)
            return (id, Self.parse(f))
        }
    }

    /// Tenants whose region version in the database differs from the one this process's
    /// engine was built from (another instance changed their regions).
    public func changedTenants() async throws -> [String] {
        let known = views.withLockedValue { $0 }
        guard !known.isEmpty else { return [] }
        return try await query("SELECT id, region_version FROM tenants WHERE id = ANY(\(Array(known.keys)))")
            .compactMap { row in
                let (id, v) = try row.decode((String, Int).self)
                return known[id]?.regionVersion == v ? nil : id
            }
    }

    // MARK: Devices and events

    public func events(tenant: String, after cursor: Int64, limit: Int) async throws -> [ServerJSON] {
        try await query(
            "SELECT cursor, body FROM outbox WHERE tenant = \(tenant) AND cursor > \(Int(cursor)) ORDER BY cursor LIMIT \(limit)"
        )
        .map { row in
            let (cur, body) = try row.decode((Int, String).self)
            return SQLiteStore.withCursor(Self.parse(body), cur)
        }
    }

    /// Reads the journal and the versions it corresponds to from one snapshot (REPEATABLE
    /// READ), and remembers those versions as this process's view of the tenant.
    public func journal(tenant: String) async throws -> [JournalEntry] {
        let (rows, view): ([PostgresRow], TenantView) = try await transaction { c in
            try await Self.run(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            let view = try await Self.readView(c, tenant: tenant, logger: logger)
            let rows = try await Self.run(
                c, "SELECT kind, body FROM journal WHERE tenant = \(tenant) ORDER BY seq", logger)
            return (rows, view)
        }
        let out = try rows.map { row in
            let (kind, body) = try row.decode((String, String).self)
            return try JournalEntry.decode(kind: kind, body: body, tenant: tenant)
        }
        views.withLockedValue { $0[tenant] = view }
        return out
    }

    /// The device's batches newer than this process's view, read with the tenant's region
    /// version in one statement (one snapshot, one round trip); `nil` when the regions changed
    /// too (the caller rebuilds everything). Empty, the common case, when the view is current.
    public func newerBatches(tenant: String, device: String) async throws -> [[LocationFix]]? {
        let seen = view(tenant)
        let known = seen.devices[device] ?? 0
        let rows = try await query(
            """
            SELECT t.region_version, j.device_version, j.body
            FROM (SELECT COALESCE((SELECT region_version FROM tenants WHERE id = \(tenant)), 0) AS region_version) t
            LEFT JOIN journal j ON j.tenant = \(tenant) AND j.device = \(device) AND j.device_version > \(known)
            ORDER BY j.device_version
            """)
        var batches: [[LocationFix]] = []
        var version = known
        for row in rows {
            let (regionVersion, v, body) = try row.decode((Int, Int?, String?).self)
            guard regionVersion == seen.regionVersion else { return nil }
            guard let v, let body else { continue }
            guard v == version + 1, let fixes = FixJSON.fixes(journal: Self.parse(body)) else { return nil }
            batches.append(fixes)
            version = v
        }
        if version != known { views.withLockedValue { $0[tenant, default: TenantView()].devices[device] = version } }
        return batches
    }

    // MARK: Webhooks

    public func addWebhook(_ webhook: Webhook, now: Date) async throws {
        try await query(
            """
            INSERT INTO webhooks (id, tenant, url, secret, created_at)
            VALUES (\(webhook.id), \(webhook.tenant), \(webhook.url), \(webhook.secret), \(now.timeIntervalSince1970))
            """)
    }

    public func webhooks(tenant: String) async throws -> [Webhook] {
        try await query(
            "SELECT id, url, secret FROM webhooks WHERE tenant = \(tenant) AND NOT deleted ORDER BY created_at, id"
        )
        .map { row in
            let (id, url, secret) = try row.decode((String, String, String).self)
            return Webhook(id: id, tenant: tenant, url: url, secret: secret)
        }
    }

    public func deleteWebhook(tenant: String, id: String) async throws -> Bool {
        try await transaction { c in
            let rows = try await Self.run(
                c,
                "UPDATE webhooks SET deleted = TRUE WHERE tenant = \(tenant) AND id = \(id) AND NOT deleted RETURNING id",
                logger)
            try await Self.run(
                c,
                "UPDATE deliveries SET state = 'cancelled' WHERE tenant = \(tenant) AND webhook_id = \(id) AND state = 'pending'",
                logger)
            return !rows.isEmpty
        }
    }

    /// Claims the due deliveries: each is leased (its next attempt moved
    /// ``deliveryLeaseSeconds`` ahead) so no other instance picks it up while this one sends it;
    /// ``recordAttempt(deliveryID:outcome:now:)`` then sets the real state.
    public func dueDeliveries(now: Date, limit: Int) async throws -> [DueDelivery] {
        let t = now.timeIntervalSince1970
        let lease = t + Self.deliveryLeaseSeconds
        let rows = try await query(
            """
            WITH due AS (
              SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt_at <= \(t)
              ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED),
            claimed AS (
              UPDATE deliveries d SET next_attempt_at = \(lease) FROM due WHERE d.id = due.id
              RETURNING d.id, d.attempts, d.event_seq, d.webhook_id)
            SELECT c.id, c.attempts, o.cursor, o.event_id, o.body, w.url, w.secret
            FROM claimed c JOIN outbox o ON o.id = c.event_seq JOIN webhooks w ON w.id = c.webhook_id
            ORDER BY c.id
            """)
        return try rows.map { row in
            let (id, attempts, cursor, eventID, body, url, secret) = try row.decode(
                (Int, Int, Int, String, String, String, String).self)
            return DueDelivery(
                id: Int64(id), eventID: eventID, attempts: attempts, url: url, secret: secret,
                body: SQLiteStore.withCursor(Self.parse(body), cursor).encoded())
        }
    }

    public func recordAttempt(deliveryID: Int64, outcome: DeliveryOutcome, now: Date) async throws {
        let t = now.timeIntervalSince1970
        let id = Int(deliveryID)
        switch outcome {
        case .delivered(let status):
            try await query(
                """
                UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, last_status = \(status), last_error = NULL,
                  delivered_at = \(t) WHERE id = \(id) AND state = 'pending'
                """)
        case .failed(let status, let error, let next):
            try await query(
                """
                UPDATE deliveries SET state = \(next == nil ? "failed" : "pending"), attempts = attempts + 1, last_status = \(status),
                  last_error = \(error), next_attempt_at = \(next?.timeIntervalSince1970 ?? t) WHERE id = \(id) AND state = 'pending'
                """)
        }
    }

    public func deliveries(tenant: String, webhookID: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        let rows = try await query(
            """
            SELECT d.id, o.event_id, d.state, d.attempts, d.last_status, d.last_error, d.next_attempt_at, d.delivered_at
            FROM deliveries d JOIN outbox o ON o.id = d.event_seq
            WHERE d.tenant = \(tenant) AND d.webhook_id = \(webhookID) AND d.id > \(Int(after)) ORDER BY d.id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (id, eventID, state, attempts, lastStatus, lastError, nextAt, deliveredAt) =
                try row.decode((Int, String, String, Int, Int?, String?, Double, Double?).self)
            var o: [String: ServerJSON] = [
                "id": .string(String(id)), "eventId": .string(eventID), "state": .string(state),
                "attempts": .number(Double(attempts)),
            ]
            if let lastStatus { o["lastStatus"] = .number(Double(lastStatus)) }
            if let lastError { o["lastError"] = .string(lastError) }
            if let deliveredAt {
                o["deliveredAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: deliveredAt)))
            } else if state == "pending" {
                o["nextAttemptAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: nextAt)))
            }
            return .object(o)
        }
    }
}
