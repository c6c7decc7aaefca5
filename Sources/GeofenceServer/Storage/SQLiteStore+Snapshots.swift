import Foundation
import Geofencing
import NIOCore
import SQLiteNIO

/// Engine snapshots in SQLite: one row per tenant in `engine_snapshots`. One process owns an
/// SQLite database and each store call runs alone on its connection, so the tenant's last
/// journal entry (``snapshotPosition(tenant:)``) is exactly what an engine with no batch in
/// flight has seen.
extension SQLiteStore {
    /// Migration 2 (snapshots and retention): the snapshot table, a partial index of the region
    /// entries of the journal so that start-up reads a tenant's region history without scanning
    /// its fixes, and retention's bookkeeping.
    static let snapshotMigration = [
        "CREATE TABLE engine_snapshots (tenant TEXT PRIMARY KEY, position INTEGER NOT NULL, format INTEGER NOT NULL, data BLOB NOT NULL, taken_at REAL NOT NULL) WITHOUT ROWID",
        "CREATE INDEX journal_regions ON journal (tenant, seq) WHERE kind <> 'fixes'",
        // Retention (SQLiteStore+Retention): when each snapshot's position was reached, how far
        // each tenant's events were pruned, and the deliveries of an event found by its event.
        "CREATE TABLE journal_marks (tenant TEXT NOT NULL, position INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (tenant, position)) WITHOUT ROWID",
        "CREATE TABLE event_horizons (tenant TEXT PRIMARY KEY, cursor INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE INDEX deliveries_event ON deliveries (event_seq)",
    ]

    public func snapshotPosition(tenant: String) async throws -> Int64? {
        try await read { s in
            Int64(
                try s.query("SELECT COALESCE(MAX(seq), 0) AS p FROM journal WHERE tenant = ?", [.text(tenant)])
                    .first?.column("p")?.integer ?? 0)
        }
    }

    public func saveSnapshot(tenant: String, position: Int64, data: Data, now: Date) async throws -> Bool {
        let blob = SQLiteData.blob(ByteBuffer(bytes: data))
        return try await transaction { s in
            // A snapshot covering more is never replaced by one covering less: retention may
            // already have pruned the fixes between the two.
            let stored = try s.query(
                """
                INSERT INTO engine_snapshots (tenant, position, format, data, taken_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (tenant) DO UPDATE SET position = excluded.position, format = excluded.format,
                  data = excluded.data, taken_at = excluded.taken_at
                  WHERE engine_snapshots.position <= excluded.position
                RETURNING position
                """,
                [
                    .text(tenant), .integer(Int(position)), .integer(Int(Engine.snapshotFormatVersion)), blob,
                    .float(now.timeIntervalSince1970),
                ])
            guard !stored.isEmpty else { return false }
            try s.query(
                "INSERT OR IGNORE INTO journal_marks (tenant, position, at) VALUES (?, ?, ?)",
                [.text(tenant), .integer(Int(position)), .float(now.timeIntervalSince1970)])
            Failpoints.reachBlocking(.snapshotBeforeCommit, detail: "position \(position)")
            return true
        }
    }

    public func startupJournal(tenant: String, useSnapshot: Bool) async throws -> StartupJournal {
        let (snapshot, head, tail) = try await read { s -> (StoredSnapshot?, [SQLiteResultRow], [SQLiteResultRow]) in
            var snapshot: StoredSnapshot? = nil
            if useSnapshot,
                let row = try s.query(
                    "SELECT position, data, taken_at FROM engine_snapshots WHERE tenant = ?", [.text(tenant)]
                ).first
            {
                let buffer = row.column("data")?.blob ?? ByteBuffer()
                snapshot = StoredSnapshot(
                    position: Int64(row.column("position")?.integer ?? 0),
                    data: Data(buffer.readableBytesView),
                    takenAt: Date(timeIntervalSince1970: row.column("taken_at")?.double ?? 0))
            }
            let position = snapshot?.position ?? 0
            let head =
                snapshot == nil
                ? []
                : try s.query(
                    "SELECT kind, body FROM journal WHERE tenant = ? AND kind <> 'fixes' AND seq <= ? ORDER BY seq",
                    [.text(tenant), .integer(Int(position))])
            let tail = try s.query(
                "SELECT kind, body FROM journal WHERE tenant = ? AND seq > ? ORDER BY seq",
                [.text(tenant), .integer(Int(position))])
            return (snapshot, head, tail)
        }
        func entries(_ rows: [SQLiteResultRow]) throws -> [JournalEntry] {
            try rows.map {
                try JournalEntry.decode(
                    kind: $0.column("kind")?.string ?? "", body: $0.column("body")?.string ?? "", tenant: tenant)
            }
        }
        return StartupJournal(snapshot: snapshot, head: try entries(head), tail: try entries(tail))
    }
}
