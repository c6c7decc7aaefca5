import Foundation
import PostgresNIO

extension PostgresStore {
    /// Migration step (issue 34): the indexes the dashboard's history and device list read
    /// through — events by device and by region, newest first; devices by last fix.
    static let browseMigration = [
        "CREATE INDEX outbox_device ON outbox (tenant, device, cursor)",
        "CREATE INDEX outbox_region ON outbox (tenant, ((body::jsonb) ->> 'region'), cursor)",
        "CREATE INDEX devices_last_seen ON devices (tenant, last_time DESC, id)",
    ]

    /// One statement for every filter: an absent filter is bound as NULL, and PostgreSQL plans
    /// the unnamed statement with the values bound (`NULL IS NULL` folds away), so a filter on
    /// device or region still reads through its index. The events the indexes select are read
    /// into `scanned`, at most ``EventFilter/examined(limit:scan:)`` of them; kind and time
    /// filter those. The one row of counts is joined to the page, so an empty page still says
    /// how far the scan went.
    public func eventHistory(
        tenant: String, filter: EventFilter, before: Int64?, limit: Int, scan: Int
    ) async throws -> HistoryPage {
        let before = before.map { Int($0) } ?? Int.max
        let examined = filter.examined(limit: limit, scan: scan)
        let rows = try await query(
            """
            WITH scanned AS (
              SELECT cursor, body FROM outbox WHERE tenant = \(tenant)
                AND (\(filter.device)::text IS NULL OR device = \(filter.device))
                AND (\(filter.region)::text IS NULL OR ((body::jsonb) ->> 'region') = \(filter.region))
                AND cursor < \(before)
              ORDER BY cursor DESC LIMIT \(examined))
            SELECT c.n, c.low, s.cursor, s.body
            FROM (SELECT count(*)::bigint AS n, min(cursor)::bigint AS low FROM scanned) AS c LEFT JOIN (
              SELECT cursor, body FROM scanned
              WHERE (\(filter.kind)::text IS NULL OR ((body::jsonb) ->> 'event') = \(filter.kind))
                AND (\(filter.fromSecond)::text IS NULL OR left((body::jsonb) ->> 'time', 19) >= \(filter.fromSecond))
                AND (\(filter.toSecond)::text IS NULL OR left((body::jsonb) ->> 'time', 19) < \(filter.toSecond))
              ORDER BY cursor DESC LIMIT \(limit)) AS s ON true
            ORDER BY s.cursor DESC
            """
        )
        var events: [ServerJSON] = []
        var count = 0
        var lowest: Int64? = nil
        for row in rows {
            let (n, low, cur, body) = try row.decode((Int, Int?, Int?, String?).self)
            (count, lowest) = (n, low.map(Int64.init))
            if let cur, let body { events.append(SQLiteStore.withCursor(Self.parse(body), cur)) }
        }
        return HistoryPage(events: events, limit: limit, examined: count, scan: examined, lowest: lowest)
    }

    /// As SQLite's: with a prefix, at most `scan` devices after the cursor are examined, last
    /// seen first, and the prefix filters those.
    public func deviceList(
        tenant: String, prefix: String?, after: DeviceCursor?, limit: Int, scan: Int
    ) async throws -> DevicePage {
        let time = after?.lastSeen
        let id = after?.id
        let examined = prefix == nil ? limit : max(scan, limit)
        let p = prefix ?? ""
        let result = try await query(
            """
            WITH scanned AS (
              SELECT id, last_fix, last_time FROM devices WHERE tenant = \(tenant)
                AND (\(time)::float8 IS NULL OR last_time < \(time) OR (last_time = \(time) AND id > \(id)))
              ORDER BY last_time DESC, id LIMIT \(examined))
            SELECT c.n, c.lt, c.lid, s.id, s.last_fix, s.last_time
            FROM (SELECT (SELECT count(*) FROM scanned)::bigint AS n,
                    (SELECT last_time FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lt,
                    (SELECT id FROM scanned ORDER BY last_time, id DESC LIMIT 1) AS lid) AS c
            LEFT JOIN (SELECT id, last_fix, last_time FROM scanned WHERE left(id, length(\(p))) = \(p)
                       ORDER BY last_time DESC, id LIMIT \(limit)) AS s ON true
            ORDER BY s.last_time DESC, s.id
            """
        )
        var rows: [DeviceRow] = []
        var count = 0
        var last: DeviceCursor? = nil
        for row in result {
            let (n, lt, lid, id, fix, time) = try row.decode((Int, Double?, String?, String?, String?, Double?).self)
            count = n
            if let lt, let lid { last = DeviceCursor(lastSeen: lt, id: lid) }
            if let id, let fix, let time { rows.append(DeviceRow(id: id, lastFix: Self.parse(fix), lastSeen: time)) }
        }
        return DevicePage(rows: rows, limit: limit, examined: count, scan: examined, lastExamined: last)
    }

    /// Through `journal_device` (tenant, device, device_version): a device's batches are
    /// numbered in commit order.
    public func fixBatches(tenant: String, device: String, before: Int64?, limit: Int) async throws -> [JournalBatch] {
        let before = Int(before ?? Int64.max)
        return try await query(
            """
            SELECT device_version, body FROM journal WHERE tenant = \(tenant) AND device = \(device) AND kind = 'fixes'
              AND device_version < \(before) ORDER BY device_version DESC LIMIT \(limit)
            """
        )
        .compactMap { row in
            let (version, body) = try row.decode((Int, String).self)
            guard let fixes = FixJSON.fixes(journal: Self.parse(body)) else { return nil }
            return JournalBatch(position: Int64(version), fixes: fixes)
        }
    }
}
