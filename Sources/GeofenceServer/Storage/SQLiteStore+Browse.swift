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

    /// The events the indexes select (tenant, device, region) are read into `scanned`, at most
    /// ``EventFilter/examined(limit:scan:)`` of them; kind and time filter those. The one row
    /// of counts is joined to the page, so an empty page still says how far the scan went.
    public func eventHistory(
        tenant: String, filter: EventFilter, before: Int64?, limit: Int, scan: Int
    ) async throws -> HistoryPage {
        // Fixed SQL fragments only; every value is bound.
        var selected = "SELECT id, body FROM outbox WHERE tenant = ?"
        var binds: [SQLiteData] = [.text(tenant)]
        if let d = filter.device {
            selected += " AND device = ?"
            binds.append(.text(d))
        }
        if let r = filter.region {
            selected += " AND json_extract(body, '$.region') = ?"
            binds.append(.text(r))
        }
        if let b = before {
            selected += " AND id < ?"
            binds.append(.integer(Int(b)))
        }
        let examined = filter.examined(limit: limit, scan: scan)
        selected += " ORDER BY id DESC LIMIT ?"
        binds.append(.integer(examined))
        var kept = "SELECT id, body FROM scanned WHERE 1"
        if let k = filter.kind {
            kept += " AND json_extract(body, '$.event') = ?"
            binds.append(.text(k))
        }
        if let f = filter.fromSecond {
            kept += " AND substr(json_extract(body, '$.time'), 1, 19) >= ?"
            binds.append(.text(f))
        }
        if let t = filter.toSecond {
            kept += " AND substr(json_extract(body, '$.time'), 1, 19) < ?"
            binds.append(.text(t))
        }
        kept += " ORDER BY id DESC LIMIT ?"
        binds.append(.integer(limit))
        let query = """
            WITH scanned AS (\(selected))
            SELECT c.n AS n, c.low AS low, s.id AS id, s.body AS body
            FROM (SELECT count(*) AS n, min(id) AS low FROM scanned) AS c LEFT JOIN (\(kept)) AS s ON 1
            ORDER BY s.id DESC
            """
        let values = binds
        let rows = try await read { s in try s.query(query, values) }
        let events = rows.compactMap { row -> ServerJSON? in
            guard let id = row.column("id")?.integer else { return nil }
            return SQLiteStore.withCursor(SQLiteStore.parse(row, "body"), id)
        }
        return HistoryPage(
            events: events, limit: limit, examined: rows.first?.column("n")?.integer ?? 0, scan: examined,
            lowest: rows.first?.column("low")?.integer.map(Int64.init))
    }

    /// With a prefix, the devices after the cursor are read last seen first into `scanned`, at
    /// most `scan` of them, and the prefix filters those; the one row of counts is joined to the
    /// page, so an empty page still says where the scan stopped.
    public func deviceList(
        tenant: String, prefix: String?, after: DeviceCursor?, limit: Int, scan: Int
    ) async throws -> DevicePage {
        var walked = "SELECT id, last_fix, last_time FROM devices WHERE tenant = ?"
        var binds: [SQLiteData] = [.text(tenant)]
        if let a = after {
            walked += " AND (last_time < ? OR (last_time = ? AND id > ?))"
            binds += [.float(a.lastSeen), .float(a.lastSeen), .text(a.id)]
        }
        walked += " ORDER BY last_time DESC, id LIMIT ?"
        let examined = prefix == nil ? limit : max(scan, limit)
        binds.append(.integer(examined))
        let p = prefix ?? ""
        binds += [.text(p), .text(p), .integer(limit)]
        let query = """
            WITH scanned AS (\(walked))
            SELECT c.n AS n, c.lt AS lt, c.lid AS lid, s.id AS id, s.last_fix AS last_fix, s.last_time AS last_time
            FROM (SELECT (SELECT count(*) FROM scanned) AS n,
                    (SELECT last_time FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lt,
                    (SELECT id FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lid) AS c
            LEFT JOIN (SELECT id, last_fix, last_time FROM scanned WHERE substr(id, 1, length(?)) = ?
                       ORDER BY last_time DESC, id LIMIT ?) AS s ON 1
            ORDER BY s.last_time DESC, s.id
            """
        let values = binds
        let result = try await read { s in try s.query(query, values) }
        let rows = result.compactMap { row -> DeviceRow? in
            guard let id = row.column("id")?.string else { return nil }
            return DeviceRow(
                id: id, lastFix: SQLiteStore.parse(row, "last_fix"), lastSeen: row.column("last_time")?.double ?? 0)
        }
        var last: DeviceCursor? = nil
        if let t = result.first?.column("lt")?.double, let id = result.first?.column("lid")?.string {
            last = DeviceCursor(lastSeen: t, id: id)
        }
        return DevicePage(
            rows: rows, limit: limit, examined: result.first?.column("n")?.integer ?? 0, scan: examined,
            lastExamined: last)
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
