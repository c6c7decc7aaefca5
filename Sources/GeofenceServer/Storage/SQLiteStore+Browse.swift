import Foundation
import SQLiteNIO

extension SQLiteStore {
    /// Migration step (issue 34): the indexes the dashboard's history and device list read
    /// through — events by device and by region, newest first; devices by last fix.
    static let browseMigration = [
        "CREATE INDEX outbox_device ON outbox (tenant, device, id)",
        "CREATE INDEX outbox_region ON outbox (tenant, json_extract(body, '$.region'), id)",
        "CREATE INDEX devices_last_seen ON devices (tenant, last_time DESC, id)",
        "CREATE INDEX journal_device ON journal (tenant, json_extract(body, '$.device'), seq) WHERE kind = 'fixes'",
    ]

    public func eventHistory(
        tenant: String, filter: EventFilter, before: Int64?, limit: Int
    ) async throws -> [ServerJSON] {
        // Fixed SQL fragments only; every value is bound.
        var sql = "SELECT id, body FROM outbox WHERE tenant = ?"
        var binds: [SQLiteData] = [.text(tenant)]
        if let d = filter.device {
            sql += " AND device = ?"
            binds.append(.text(d))
        }
        if let r = filter.region {
            sql += " AND json_extract(body, '$.region') = ?"
            binds.append(.text(r))
        }
        if let k = filter.kind {
            sql += " AND json_extract(body, '$.event') = ?"
            binds.append(.text(k))
        }
        if let f = filter.fromSecond {
            sql += " AND substr(json_extract(body, '$.time'), 1, 19) >= ?"
            binds.append(.text(f))
        }
        if let t = filter.toSecond {
            sql += " AND substr(json_extract(body, '$.time'), 1, 19) < ?"
            binds.append(.text(t))
        }
        if let b = before {
            sql += " AND id < ?"
            binds.append(.integer(Int(b)))
        }
        sql += " ORDER BY id DESC LIMIT ?"
        binds.append(.integer(limit))
        let query = sql
        let values = binds
        let rows = try await read { s in try s.query(query, values) }
        return rows.map { SQLiteStore.withCursor(SQLiteStore.parse($0, "body"), $0.column("id")?.integer ?? 0) }
    }

    public func deviceList(
        tenant: String, prefix: String?, after: DeviceCursor?, limit: Int
    ) async throws -> [DeviceRow] {
        var sql = "SELECT id, last_fix, last_time FROM devices WHERE tenant = ?"
        var binds: [SQLiteData] = [.text(tenant)]
        if let p = prefix {
            sql += " AND substr(id, 1, length(?)) = ?"
            binds += [.text(p), .text(p)]
        }
        if let a = after {
            sql += " AND (last_time < ? OR (last_time = ? AND id > ?))"
            binds += [.float(a.lastSeen), .float(a.lastSeen), .text(a.id)]
        }
        sql += " ORDER BY last_time DESC, id LIMIT ?"
        binds.append(.integer(limit))
        let query = sql
        let values = binds
        let rows = try await read { s in try s.query(query, values) }
        return rows.map { row in
            DeviceRow(
                id: row.column("id")?.string ?? "", lastFix: SQLiteStore.parse(row, "last_fix"),
                lastSeen: row.column("last_time")?.double ?? 0)
        }
    }

    public func fixBatches(tenant: String, device: String, before: Int64?, limit: Int) async throws -> [JournalBatch] {
        let rows = try await read { s in
            try s.query(
                """
                SELECT seq, body FROM journal WHERE tenant = ? AND kind = 'fixes' AND json_extract(body, '$.device') = ?
                  AND seq < ? ORDER BY seq DESC LIMIT ?
                """, [.text(tenant), .text(device), .integer(Int(before ?? Int64.max)), .integer(limit)])
        }
        return rows.compactMap { row in
            guard let fixes = FixJSON.fixes(journal: SQLiteStore.parse(row, "body")) else { return nil }
            return JournalBatch(position: Int64(row.column("seq")?.integer ?? 0), fixes: fixes)
        }
    }
}
