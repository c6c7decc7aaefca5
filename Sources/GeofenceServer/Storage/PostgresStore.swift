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
/// Cost: a fix batch is one catch-up query plus one transaction of 5 round trips, plus 1 per
/// event and 1 for the cursors; a device that moved on elsewhere costs the replay of the
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

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        self.runTask = Task { await client.run() }
    }

    /// Connects to the database named by a `postgres://user:password@host:port/database` URL
    /// (`postgresql://` too; `?sslmode=require` for TLS with certificate verification, otherwise
    /// plain TCP). Connections are opened on demand, at most `maximumConnections`.
    /// - Throws: ``ConfigurationError`` (key `database`) naming what is wrong with the URL.
    public static func open(url: String, maximumConnections: Int = 20,
                            logger: Logger = Logger(label: "geofence.postgres")) async throws -> PostgresStore {
        let target = try PostgresURL(url)
        var config = PostgresClient.Configuration(host: target.host, port: target.port, username: target.user,
                                                  password: target.password, database: target.database,
                                                  tls: target.requireTLS ? .require(.makeClientConfiguration()) : .disable)
        config.options.maximumConnections = max(2, maximumConnections)
        config.options.connectTimeout = .seconds(10)
        config.options.additionalStartupParameters = [("application_name", "geofence")]
        if let path = target.searchPath { config.options.additionalStartupParameters.append(("search_path", path)) }
        let store = PostgresStore(client: PostgresClient(configuration: config, backgroundLogger: logger), logger: logger)
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
    ]

    public func migrate() async throws {
        let now = Date().timeIntervalSince1970
        try await transaction { c in
            // One instance migrates at a time; the others wait here, then find nothing to do.
            try await Self.run(c, "SELECT pg_advisory_xact_lock(0, 1)", logger)
            try await Self.run(c, "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)", logger)
            let current = try await Self.run(c, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations", logger)
                .first?.decode(Int.self) ?? 0
            for (i, statements) in Self.migrations.enumerated() where i + 1 > current {
                for s in statements { try await Self.run(c, PostgresQuery(unsafeSQL: s), logger) }
                try await Self.run(c, "INSERT INTO schema_migrations (version, applied_at) VALUES (\(i + 1), \(now))", logger)
            }
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int {
        try await query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").first?.decode(Int.self) ?? 0
    }

    // MARK: Tenants and keys

    public func addAPIKey(tenant: String, keyHash: String, now: Date) async throws {
        let t = now.timeIntervalSince1970
        try await transaction { c in
            try await Self.run(c, "INSERT INTO tenants (id, created_at) VALUES (\(tenant), \(t)) ON CONFLICT (id) DO NOTHING", logger)
            try await Self.run(c, "INSERT INTO api_keys (key_hash, tenant, created_at) VALUES (\(keyHash), \(tenant), \(t))", logger)
        }
    }

    public func tenant(forKeyHash keyHash: String) async throws -> String? {
        try await query("SELECT tenant FROM api_keys WHERE key_hash = \(keyHash)").first?.decode(String.self)
    }

    public func tenants() async throws -> [String] {
        try await query("SELECT id FROM tenants UNION SELECT DISTINCT tenant AS id FROM journal ORDER BY id")
            .map { try $0.decode(String.self) }
    }

    // MARK: Regions

    /// Takes the tenant's exclusive lock, checks this process saw the latest region version,
    /// bumps it, runs `body`; records the new version once committed.
    func regionChange<T: Sendable>(tenant: String, now: Date, _ body: (PostgresConnection) async throws -> T?) async throws -> T? {
        let expected = view(tenant).regionVersion
        let t = now.timeIntervalSince1970
        let result: (T, Int)? = try await transaction { c in
            try await Self.run(c, "SELECT pg_advisory_xact_lock(1, hashtext(\(tenant)))", logger)
            let current = try await Self.run(c, "SELECT region_version FROM tenants WHERE id = \(tenant)", logger)
                .first?.decode(Int.self) ?? 0
            guard current == expected else { throw StoreError.staleView(tenant: tenant) }
            guard let r = try await body(c) else { return nil }
            let v = try await Self.run(c, """
                INSERT INTO tenants (id, created_at, region_version) VALUES (\(tenant), \(t), 1)
                ON CONFLICT (id) DO UPDATE SET region_version = tenants.region_version + 1 RETURNING region_version
                """, logger).first?.decode(Int.self) ?? 0
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
                try await Self.run(c, """
                    INSERT INTO regions (tenant, id, feature, updated_at)
                    SELECT \(tenant), r.id, r.feature, \(t) FROM unnest(\(ids)::text[], \(bodies)::text[]) AS r(id, feature)
                    ON CONFLICT (tenant, id) DO UPDATE SET feature = excluded.feature, updated_at = excluded.updated_at
                    """, logger)
                start = end
            }
            try await Self.run(c, "INSERT INTO journal (tenant, kind, body) VALUES (\(tenant), 'upsert', \(Self.text(.array(features))))", logger)
            return true
        }
    }

    public func deleteRegion(tenant: String, id: String, now: Date) async throws -> Bool {
        try await regionChange(tenant: tenant, now: now) { c -> Bool? in
            let gone = try await Self.run(c, "DELETE FROM regions WHERE tenant = \(tenant) AND id = \(id) RETURNING id", logger)
            guard !gone.isEmpty else { return nil }
            try await Self.run(c, "INSERT INTO journal (tenant, kind, body) VALUES (\(tenant), 'delete', \(id))", logger)
            return true
        } ?? false
    }

    public func region(tenant: String, id: String) async throws -> ServerJSON? {
        try await query("SELECT feature FROM regions WHERE tenant = \(tenant) AND id = \(id)")
            .first.map { Self.parse(try $0.decode(String.self)) }
    }

    public func listRegions(tenant: String, after: String?, limit: Int) async throws -> [(id: String, feature: ServerJSON)] {
        try await query("SELECT id, feature FROM regions WHERE tenant = \(tenant) AND id > \(after ?? "") ORDER BY id LIMIT \(limit)")
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

    public func commitFixes(tenant: String, device: String, fixes: [LocationFix], events: [StoredEvent], now: Date) async throws -> [StoredEvent] {
        guard let last = fixes.last else { return [] }
        let t = now.timeIntervalSince1970
        let journalBody = Self.text(FixJSON.journalJSON(device: device, fixes: fixes))
        let lastFix = Self.text(FixJSON.json(last))
        let seen = view(tenant)
        let expectedDevice = seen.devices[device] ?? 0
        let key = tenant + "/" + device
        let (out, version): ([StoredEvent], Int) = try await transaction { c in
            // Locks first; the versions are read by the next statement, whose snapshot is taken
            // after the locks are held (READ COMMITTED: one snapshot per statement).
            try await Self.run(c, "SELECT pg_advisory_xact_lock_shared(1, hashtext(\(tenant))), pg_advisory_xact_lock(2, hashtext(\(key)))", logger)
            let versions = try await Self.run(c, """
                SELECT COALESCE((SELECT region_version FROM tenants WHERE id = \(tenant)), 0),
                       COALESCE((SELECT version FROM devices WHERE tenant = \(tenant) AND id = \(device)), 0)
                """, logger)
            let (regionVersion, deviceVersion) = try versions.first?.decode((Int, Int).self) ?? (0, 0)
            guard regionVersion == seen.regionVersion else { throw StoreError.staleView(tenant: tenant) }
            guard deviceVersion == expectedDevice else { throw StoreError.staleDevice(tenant: tenant, device: device) }
            try await Self.run(c, """
                WITH j AS (
                  INSERT INTO journal (tenant, kind, device, device_version, body)
                  VALUES (\(tenant), 'fixes', \(device), \(deviceVersion + 1), \(journalBody)))
                INSERT INTO devices (tenant, id, last_fix, last_time, fix_count, version, updated_at)
                VALUES (\(tenant), \(device), \(lastFix), \(last.timestamp.timeIntervalSince1970), \(fixes.count), 1, \(t))
                ON CONFLICT (tenant, id) DO UPDATE SET last_fix = excluded.last_fix, last_time = excluded.last_time,
                  fix_count = devices.fix_count + excluded.fix_count, version = devices.version + 1, updated_at = excluded.updated_at
                """, logger)
            guard !events.isEmpty else { return ([], deviceVersion + 1) }
            // Cursors in commit order: the cursor row stays locked until this transaction ends.
            let top = try await Self.run(c, """
                INSERT INTO event_cursors (tenant, seq) VALUES (\(tenant), \(events.count))
                ON CONFLICT (tenant) DO UPDATE SET seq = event_cursors.seq + excluded.seq RETURNING seq
                """, logger).first?.decode(Int.self) ?? events.count
            var out: [StoredEvent] = []
            for (i, var e) in events.enumerated() {
                e.cursor = Int64(top - events.count + i + 1)
                try await Self.run(c, """
                    WITH o AS (
                      INSERT INTO outbox (tenant, cursor, event_id, device, body, created_at)
                      VALUES (\(tenant), \(Int(e.cursor)), \(e.id), \(device), \(Self.text(e.json)), \(t)) RETURNING id)
                    INSERT INTO deliveries (tenant, webhook_id, event_seq, state, attempts, next_attempt_at)
                    SELECT w.tenant, w.id, o.id, 'pending', 0, \(t) FROM webhooks w, o WHERE w.tenant = \(tenant) AND NOT w.deleted
                    """, logger)
                out.append(e)
            }
            return (out, deviceVersion + 1)
        }
        views.withLockedValue { $0[tenant, default: TenantView()].devices[device] = version }
        return out
    }

    /// `true`: ``commitFixBatches(tenant:_:now:)`` is one transaction.
    public var commitsBatchesAtomically: Bool { true }

    /// Commits the batches in one READ COMMITTED transaction of at most five round trips
    /// however many batches there are (BEGIN and COMMIT included): the tenant's shared advisory
    /// lock and every device's advisory lock (in lock-key order, so instances committing
    /// overlapping groups cannot deadlock); then one statement that reads the versions of the
    /// tenant and of every device and writes the journal and device rows only if they are the
    /// ones this process's view holds — the check of ``commitFixes(tenant:device:fixes:events:now:)``
    /// (any difference: nothing is written, ``StoreError/staleView(tenant:)`` /
    /// ``StoreError/staleDevice(tenant:device:)`` naming a device that moved); then, if there
    /// are events, one statement for the cursors, outbox and deliveries. A device with k
    /// batches in the group moves k versions.
    public func commitFixBatches(tenant: String, _ batches: [FixBatch], now: Date) async throws -> [[StoredEvent]] {
        let live = batches.filter { !$0.fixes.isEmpty }
        guard !live.isEmpty else { return batches.map { _ in [] } }
        let t = now.timeIntervalSince1970
        let seen = view(tenant)
        var order: [String] = []
        var perDevice: [String: (last: LocationFix, fixes: Int, batches: Int)] = [:]
        var journalDevices: [String] = [], journalVersions: [Int] = [], journalBodies: [String] = []
        for b in live {
            let last = b.fixes[b.fixes.count - 1]
            let before = perDevice[b.device]
            if before == nil { order.append(b.device) }
            let n = (before?.batches ?? 0) + 1
            perDevice[b.device] = (last, (before?.fixes ?? 0) + b.fixes.count, n)
            journalDevices.append(b.device)
            journalVersions.append((seen.devices[b.device] ?? 0) + n)
            journalBodies.append(FixJSON.journalText(device: b.device, fixes: b.fixes))
        }
        let lockKeys = order.map { tenant + "/" + $0 }
        let rowLast = order.map { FixJSON.text(perDevice[$0]!.last) }
        let rowTime = order.map { perDevice[$0]!.last.timestamp.timeIntervalSince1970 }
        let rowFixes = order.map { perDevice[$0]!.fixes }
        let rowBatches = order.map { perDevice[$0]!.batches }
        let events = live.flatMap { b in b.events.map { (b.device, $0) } }
        let expected = order.map { seen.devices[$0] ?? 0 }
        let ids = events.map(\.1.id), eventDevices = events.map(\.0), bodies = events.map { Self.text($0.1.json) }
        let cursors: [String: Int64] = try await transaction { c in
            // 1. Locks: the tenant's (shared), then every device's in lock-key order.
            try await Self.run(c, """
                SELECT pg_advisory_xact_lock_shared(1, hashtext(\(tenant)))
                UNION ALL
                SELECT pg_advisory_xact_lock(2, s.h)
                FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(\(lockKeys)::text[]) AS u(k) ORDER BY 1) s
                """, logger)
            // 2. Versions and writes in one statement, whose snapshot is taken after the locks
            //    are held (READ COMMITTED): the rows are written only if every version is the
            //    one this process's engine was built from; the versions read come back either way.
            let rows = try await Self.run(c, """
                WITH v AS (
                  SELECT COALESCE((SELECT region_version FROM tenants WHERE id = \(tenant)), 0) AS rv, d.id, d.expected,
                         COALESCE(dv.version, 0) AS version
                  FROM unnest(\(order)::text[], \(expected)::bigint[]) AS d(id, expected)
                  LEFT JOIN devices dv ON dv.tenant = \(tenant) AND dv.id = d.id),
                ok AS (SELECT bool_and(rv = \(seen.regionVersion) AND version = expected) AS fine FROM v),
                j AS (
                  INSERT INTO journal (tenant, kind, device, device_version, body)
                  SELECT \(tenant), 'fixes', u.d, u.v, u.b
                  FROM unnest(\(journalDevices)::text[], \(journalVersions)::bigint[], \(journalBodies)::text[]) WITH ORDINALITY AS u(d, v, b, n), ok
                  WHERE ok.fine
                  ORDER BY u.n),
                w AS (
                  INSERT INTO devices (tenant, id, last_fix, last_time, fix_count, version, updated_at)
                  SELECT \(tenant), u.d, u.f, u.lt, u.c, u.k, \(t)
                  FROM unnest(\(order)::text[], \(rowLast)::text[], \(rowTime)::float8[], \(rowFixes)::bigint[], \(rowBatches)::bigint[]) AS u(d, f, lt, c, k), ok
                  WHERE ok.fine
                  ON CONFLICT (tenant, id) DO UPDATE SET last_fix = excluded.last_fix, last_time = excluded.last_time,
                    fix_count = devices.fix_count + excluded.fix_count, version = devices.version + excluded.version,
                    updated_at = excluded.updated_at)
                SELECT rv, id, version, expected FROM v
                """, logger)
            for row in rows {
                let (regionVersion, device, version, wanted) = try row.decode((Int, String, Int, Int).self)
                guard regionVersion == seen.regionVersion else { throw StoreError.staleView(tenant: tenant) }
                guard version == wanted else { throw StoreError.staleDevice(tenant: tenant, device: device) }
            }
            guard !events.isEmpty else { return [:] }
            // 3. Cursors (in commit order: the cursor row stays locked until this transaction
            //    ends), outbox rows and deliveries in one statement.
            let numbered = try await Self.run(c, """
                WITH cur AS (
                  INSERT INTO event_cursors (tenant, seq) VALUES (\(tenant), \(events.count))
                  ON CONFLICT (tenant) DO UPDATE SET seq = event_cursors.seq + excluded.seq RETURNING seq),
                o AS (
                  INSERT INTO outbox (tenant, cursor, event_id, device, body, created_at)
                  SELECT \(tenant), cur.seq - \(events.count) + u.n, u.e, u.d, u.b, \(t)
                  FROM cur, unnest(\(ids)::text[], \(eventDevices)::text[], \(bodies)::text[]) WITH ORDINALITY AS u(e, d, b, n)
                  ORDER BY u.n
                  RETURNING id, cursor, event_id),
                dl AS (
                  INSERT INTO deliveries (tenant, webhook_id, event_seq, state, attempts, next_attempt_at)
                  SELECT w.tenant, w.id, o.id, 'pending', 0, \(t) FROM webhooks w, o WHERE w.tenant = \(tenant) AND NOT w.deleted)
                SELECT event_id, cursor FROM o
                """, logger)
            var out: [String: Int64] = [:]
            for row in numbered {
                let (id, cursor) = try row.decode((String, Int).self)
                out[id] = Int64(cursor)
            }
            return out
        }
        views.withLockedValue { v in
            for (d, n) in zip(order, rowBatches) { v[tenant, default: TenantView()].devices[d] = (seen.devices[d] ?? 0) + n }
        }
        return batches.map { $0.events(withCursors: cursors) }
    }

    public func events(tenant: String, after cursor: Int64, limit: Int) async throws -> [ServerJSON] {
        try await query("SELECT cursor, body FROM outbox WHERE tenant = \(tenant) AND cursor > \(Int(cursor)) ORDER BY cursor LIMIT \(limit)")
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
            var view = TenantView()
            view.regionVersion = try await Self.run(c, "SELECT region_version FROM tenants WHERE id = \(tenant)", logger)
                .first?.decode(Int.self) ?? 0
            for row in try await Self.run(c, "SELECT id, version FROM devices WHERE tenant = \(tenant)", logger) {
                let (id, v) = try row.decode((String, Int).self)
                view.devices[id] = v
            }
            let rows = try await Self.run(c, "SELECT kind, body FROM journal WHERE tenant = \(tenant) ORDER BY seq", logger)
            return (rows, view)
        }
        var out: [JournalEntry] = []
        out.reserveCapacity(rows.count)
        for row in rows {
            let (kind, body) = try row.decode((String, String).self)
            switch kind {
            case "delete":
                out.append(.delete(body))
            case "upsert":
                guard case .array(let fs) = Self.parse(body) else { throw StoreError.corruptJournal(tenant: tenant) }
                out.append(.upsert(try fs.map { f throws(Problem) in try RegionJSON.region(from: f, path: "journal") }))
            case "fixes":
                guard let fixes = FixJSON.fixes(journal: Self.parse(body)) else { throw StoreError.corruptJournal(tenant: tenant) }
                out.append(.fixes(fixes))
            default:
                throw StoreError.corruptJournal(tenant: tenant)
            }
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
        let rows = try await query("""
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
        try await query("""
            INSERT INTO webhooks (id, tenant, url, secret, created_at)
            VALUES (\(webhook.id), \(webhook.tenant), \(webhook.url), \(webhook.secret), \(now.timeIntervalSince1970))
            """)
    }

    public func webhooks(tenant: String) async throws -> [Webhook] {
        try await query("SELECT id, url, secret FROM webhooks WHERE tenant = \(tenant) AND NOT deleted ORDER BY created_at, id")
            .map { row in
                let (id, url, secret) = try row.decode((String, String, String).self)
                return Webhook(id: id, tenant: tenant, url: url, secret: secret)
            }
    }

    public func deleteWebhook(tenant: String, id: String) async throws -> Bool {
        try await transaction { c in
            let rows = try await Self.run(c, "UPDATE webhooks SET deleted = TRUE WHERE tenant = \(tenant) AND id = \(id) AND NOT deleted RETURNING id", logger)
            try await Self.run(c, "UPDATE deliveries SET state = 'cancelled' WHERE tenant = \(tenant) AND webhook_id = \(id) AND state = 'pending'", logger)
            return !rows.isEmpty
        }
    }

    /// Claims the due deliveries: each is leased (its next attempt moved
    /// ``deliveryLeaseSeconds`` ahead) so no other instance picks it up while this one sends it;
    /// ``recordAttempt(deliveryID:outcome:now:)`` then sets the real state.
    public func dueDeliveries(now: Date, limit: Int) async throws -> [DueDelivery] {
        let t = now.timeIntervalSince1970
        let lease = t + Self.deliveryLeaseSeconds
        let rows = try await query("""
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
            let (id, attempts, cursor, eventID, body, url, secret) = try row.decode((Int, Int, Int, String, String, String, String).self)
            return DueDelivery(id: Int64(id), eventID: eventID, attempts: attempts, url: url, secret: secret,
                               body: SQLiteStore.withCursor(Self.parse(body), cursor).encoded())
        }
    }

    public func recordAttempt(deliveryID: Int64, outcome: DeliveryOutcome, now: Date) async throws {
        let t = now.timeIntervalSince1970
        let id = Int(deliveryID)
        switch outcome {
        case .delivered(let status):
            try await query("""
                UPDATE deliveries SET state = 'delivered', attempts = attempts + 1, last_status = \(status), last_error = NULL,
                  delivered_at = \(t) WHERE id = \(id) AND state = 'pending'
                """)
        case let .failed(status, error, next):
            try await query("""
                UPDATE deliveries SET state = \(next == nil ? "failed" : "pending"), attempts = attempts + 1, last_status = \(status),
                  last_error = \(error), next_attempt_at = \(next?.timeIntervalSince1970 ?? t) WHERE id = \(id) AND state = 'pending'
                """)
        }
    }

    public func deliveries(tenant: String, webhookID: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        let rows = try await query("""
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
            if let deliveredAt { o["deliveredAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: deliveredAt))) }
            else if state == "pending" { o["nextAttemptAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: nextAt))) }
            return .object(o)
        }
    }
}
