import Foundation
import SQLiteNIO

/// Retention in SQLite (see ``ServerStore/prune(tenant:fixesBefore:eventsBefore:limit:)``).
///
/// Journal rows carry no time, so each snapshot records when its position was reached
/// (`journal_marks`): every fix batch at or before the newest mark older than the cut-off was
/// stored before the cut-off, and is covered by the snapshot (positions only grow). Events
/// are deleted as a prefix of the tenant's outbox (cursor order) up to the first one still
/// young or with a delivery pending, with their deliveries, and `event_horizons` remembers
/// the last cursor deleted.
extension SQLiteStore {
    public func prune(tenant: String, fixesBefore: Date?, eventsBefore: Date?, limit: Int) async throws -> PruneCount {
        try await transaction { s in
            var count = PruneCount()
            if let cut = fixesBefore?.timeIntervalSince1970,
                let bound = try s.query(
                    "SELECT MAX(position) AS p FROM journal_marks WHERE tenant = ? AND at <= ?",
                    [.text(tenant), .float(cut)]
                ).first?.column("p")?.integer
            {
                let covered = Int(
                    try s.query("SELECT position FROM engine_snapshots WHERE tenant = ?", [.text(tenant)])
                        .first?.column("position")?.integer ?? 0)
                count.fixBatches = try s.query(
                    """
                    DELETE FROM journal WHERE seq IN (SELECT seq FROM journal WHERE tenant = ? AND kind = 'fixes' AND seq <= ?
                      ORDER BY seq LIMIT ?) RETURNING seq
                    """, [.text(tenant), .integer(min(bound, covered)), .integer(limit)]
                ).count
                try s.query(
                    "DELETE FROM journal_marks WHERE tenant = ? AND position < ?", [.text(tenant), .integer(bound)])
            }
            if let cut = eventsBefore?.timeIntervalSince1970 {
                /// The tenant's oldest `n` events, each with whether it may go.
                func oldest(_ n: Int) throws -> [SQLiteResultRow] {
                    try s.query(
                        """
                        SELECT o.id AS id, o.created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = o.id AND d.state = 'pending') AS done
                        FROM outbox o WHERE o.tenant = ? ORDER BY o.id LIMIT ?
                        """, [.float(cut), .text(tenant), .integer(n)])
                }
                // The oldest event alone first: in the common case (it is young) nothing more is read.
                let rows = try oldest(1).first?.column("done")?.integer == 1 ? try oldest(limit) : []
                let prefix = rows.prefix { $0.column("done")?.integer == 1 }
                if let last = prefix.last?.column("id")?.integer {
                    try s.query(
                        "DELETE FROM deliveries WHERE event_seq IN (SELECT id FROM outbox WHERE tenant = ? AND id <= ?)",
                        [.text(tenant), .integer(last)])
                    try s.query("DELETE FROM outbox WHERE tenant = ? AND id <= ?", [.text(tenant), .integer(last)])
                    try s.query(
                        "INSERT INTO event_horizons (tenant, cursor) VALUES (?, ?) ON CONFLICT (tenant) DO UPDATE SET cursor = excluded.cursor",
                        [.text(tenant), .integer(last)])
                    count.events = prefix.count
                }
            }
            return count
        }
    }

    public func eventHorizon(tenant: String) async throws -> Int64 {
        try await read { s in
            Int64(
                try s.query("SELECT cursor FROM event_horizons WHERE tenant = ?", [.text(tenant)]).first?.column(
                    "cursor")?.integer ?? 0)
        }
    }
}
