import Foundation
import PostgresNIO

/// Retention in PostgreSQL: the rules of ``SQLiteStore+Retention`` (snapshot marks for fixes,
/// a prefix of the outbox in cursor order for events), under the tenant's advisory lock taken
/// shared, like a fix commit. A snapshot may still be written meanwhile (its write takes no
/// lock), but a stored snapshot's position only grows (``saveSnapshot(tenant:position:data:now:)``)
/// and every mark is at or below it: the coverage read here can only be short of the truth,
/// which deletes less, never more.
extension PostgresStore {
    public func prune(tenant: String, fixesBefore: Date?, eventsBefore: Date?, limit: Int) async throws -> PruneCount {
        try await transaction { c in
            try await Self.run(c, "SELECT pg_advisory_xact_lock_shared(1, hashtext(\(tenant)))", logger)
            var count = PruneCount()
            if let cut = fixesBefore?.timeIntervalSince1970,
                let bound = try await Self.run(
                    c, "SELECT MAX(position) FROM journal_marks WHERE tenant = \(tenant) AND at <= \(cut)", logger
                )
                .first?.decode(Int64?.self)
            {
                let covered =
                    try await Self.run(c, "SELECT position FROM engine_snapshots WHERE tenant = \(tenant)", logger)
                    .first?.decode(Int64.self) ?? 0
                count.fixBatches = try await Self.run(
                    c,
                    """
                    DELETE FROM journal WHERE seq IN (SELECT seq FROM journal WHERE tenant = \(tenant) AND kind = 'fixes'
                      AND seq <= \(min(bound, covered)) ORDER BY seq LIMIT \(limit)) RETURNING seq
                    """, logger
                ).count
                try await Self.run(
                    c, "DELETE FROM journal_marks WHERE tenant = \(tenant) AND position < \(bound)", logger)
            }
            if let cut = eventsBefore?.timeIntervalSince1970 {
                /// The tenant's oldest `n` events, each with whether it may go.
                func oldest(_ n: Int) async throws -> [PostgresRow] {
                    try await Self.run(
                        c,
                        """
                        SELECT o.cursor, o.created_at < \(cut) AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = o.id AND d.state = 'pending')
                        FROM outbox o WHERE o.tenant = \(tenant) ORDER BY o.cursor LIMIT \(n)
                        """, logger)
                }
                // The oldest event alone first: in the common case (it is young) nothing more is read.
                var rows: [PostgresRow] = []
                if let head = try await oldest(1).first, try head.decode((Int64, Bool).self).1 {
                    rows = try await oldest(limit)
                }
                var last: Int64? = nil
                var n = 0
                for row in rows {
                    let (cursor, done) = try row.decode((Int64, Bool).self)
                    guard done else { break }
                    last = cursor
                    n += 1
                }
                if let last {
                    try await Self.run(
                        c,
                        """
                        DELETE FROM deliveries WHERE event_seq IN (SELECT id FROM outbox WHERE tenant = \(tenant) AND cursor <= \(last))
                        """, logger)
                    try await Self.run(c, "DELETE FROM outbox WHERE tenant = \(tenant) AND cursor <= \(last)", logger)
                    try await Self.run(
                        c,
                        """
                        INSERT INTO event_horizons (tenant, cursor) VALUES (\(tenant), \(last))
                        ON CONFLICT (tenant) DO UPDATE SET cursor = excluded.cursor
                        """, logger)
                    count.events = n
                }
            }
            return count
        }
    }

    public func eventHorizon(tenant: String) async throws -> Int64 {
        try await query("SELECT cursor FROM event_horizons WHERE tenant = \(tenant)").first?.decode(Int64.self) ?? 0
    }
}
