import Foundation
import Geofencing
import PostgresNIO

/// Engine snapshots in PostgreSQL: one row per tenant in `engine_snapshots`.
///
/// Several instances may write one tenant, and journal sequence numbers are handed out before
/// their transactions commit, so "the tenant's last journal entry" is only meaningful while
/// no write of the tenant is under way. ``snapshotPosition(tenant:)`` therefore reads it under
/// the tenant's advisory lock taken **exclusively** (fix commits hold it shared, region
/// changes exclusively: ``PostgresStore+Commit``), in a short transaction that writes nothing:
/// every earlier write has committed. It answers only when this process's view (region version
/// and every device's version) is the database's — otherwise this engine has not seen some
/// committed batches and the snapshot is skipped (`nil`). Entries up to that position never
/// change afterwards, so the snapshot itself is written later without the lock, while the
/// tenant's ingestion goes on.
extension PostgresStore {
    /// Migration 3 (snapshots and retention): the snapshot table, a partial index of the region
    /// entries of the journal so that start-up reads a tenant's region history without scanning
    /// its fixes, and retention's bookkeeping.
    static let snapshotMigration = [
        #"CREATE TABLE engine_snapshots (tenant TEXT COLLATE "C" PRIMARY KEY, position BIGINT NOT NULL, format BIGINT NOT NULL, data BYTEA NOT NULL, taken_at DOUBLE PRECISION NOT NULL)"#,
        "CREATE INDEX journal_regions ON journal (tenant, seq) WHERE kind <> 'fixes'",
        // Retention (PostgresStore+Retention): when each snapshot's position was reached, how far
        // each tenant's events were pruned, and the deliveries of an event found by its event.
        #"CREATE TABLE journal_marks (tenant TEXT COLLATE "C" NOT NULL, position BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, position))"#,
        #"CREATE TABLE event_horizons (tenant TEXT COLLATE "C" PRIMARY KEY, cursor BIGINT NOT NULL)"#,
        "CREATE INDEX deliveries_event ON deliveries (event_seq)",
    ]

    public func snapshotPosition(tenant: String) async throws -> Int64? {
        let seen = view(tenant)
        let ids = Array(seen.devices.keys)
        let versions = ids.map { seen.devices[$0]! }
        return try await transaction { c -> Int64? in
            try await Self.run(c, "SELECT pg_advisory_xact_lock(1, hashtext(\(tenant)))", logger)
            // One statement, run after the lock is granted, so it sees every earlier write.
            let row = try await Self.run(
                c,
                """
                SELECT COALESCE((SELECT region_version FROM tenants WHERE id = \(tenant)), 0),
                  (SELECT count(*) FROM (SELECT id, version FROM devices WHERE tenant = \(tenant)) AS d
                     FULL JOIN unnest(\(ids)::text[], \(versions)::bigint[]) AS v(id, version) ON d.id = v.id
                     WHERE coalesce(d.version, 0) <> coalesce(v.version, 0)),
                  (SELECT COALESCE(MAX(seq), 0) FROM journal WHERE tenant = \(tenant))
                """, logger
            ).first
            guard let (region, moved, position) = try row?.decode((Int, Int, Int64).self),
                region == seen.regionVersion, moved == 0
            else { return nil }
            return position
        }
    }

    public func saveSnapshot(tenant: String, position: Int64, data: Data, now: Date) async throws -> Bool {
        let t = now.timeIntervalSince1970
        let format = Int(Engine.snapshotFormatVersion)
        return try await transaction { c -> Bool in
            // A snapshot covering more is never replaced by one covering less (another instance
            // may have written it, and retention pruned the fixes between the two).
            let stored = try await Self.run(
                c,
                """
                INSERT INTO engine_snapshots (tenant, position, format, data, taken_at) VALUES (\(tenant), \(position), \(format), \(data), \(t))
                ON CONFLICT (tenant) DO UPDATE SET position = excluded.position, format = excluded.format,
                  data = excluded.data, taken_at = excluded.taken_at
                  WHERE engine_snapshots.position <= excluded.position
                RETURNING position
                """, logger)
            guard !stored.isEmpty else { return false }
            try await Self.run(
                c,
                """
                INSERT INTO journal_marks (tenant, position, at) VALUES (\(tenant), \(position), \(t))
                ON CONFLICT (tenant, position) DO NOTHING
                """, logger)
            await Failpoints.reach(.snapshotBeforeCommit, detail: "position \(position)")
            return true
        }
    }

    /// Reads the snapshot, the journal around it and the versions they correspond to from one
    /// snapshot of the database (REPEATABLE READ), and remembers those versions as this
    /// process's view of the tenant (as ``journal(tenant:)`` does).
    public func startupJournal(tenant: String, useSnapshot: Bool) async throws -> StartupJournal {
        let (snapshot, head, tail, view) = try await transaction {
            c -> (StoredSnapshot?, [PostgresRow], [PostgresRow], TenantView) in
            try await Self.run(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            let view = try await Self.readView(c, tenant: tenant, logger: logger)
            var snapshot: StoredSnapshot? = nil
            if useSnapshot,
                let row = try await Self.run(
                    c, "SELECT position, data, taken_at FROM engine_snapshots WHERE tenant = \(tenant)", logger
                ).first
            {
                let (position, data, taken) = try row.decode((Int64, Data, Double).self)
                snapshot = StoredSnapshot(position: position, data: data, takenAt: Date(timeIntervalSince1970: taken))
            }
            let position = snapshot?.position ?? 0
            let head =
                snapshot == nil
                ? []
                : try await Self.run(
                    c,
                    """
                    SELECT kind, body FROM journal WHERE tenant = \(tenant) AND kind <> 'fixes' AND seq <= \(position) ORDER BY seq
                    """, logger)
            let tail = try await Self.run(
                c, "SELECT kind, body FROM journal WHERE tenant = \(tenant) AND seq > \(position) ORDER BY seq", logger)
            return (snapshot, head, tail, view)
        }
        func entries(_ rows: [PostgresRow]) throws -> [JournalEntry] {
            try rows.map { row in
                let (kind, body) = try row.decode((String, String).self)
                return try JournalEntry.decode(kind: kind, body: body, tenant: tenant)
            }
        }
        let out = StartupJournal(snapshot: snapshot, head: try entries(head), tail: try entries(tail))
        views.withLockedValue { $0[tenant] = view }
        return out
    }
}
