import Foundation
import Geofencing
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/devices?prefix=&inside=&after=&limit=`: the tenant's devices, last seen first
    /// (ties by id), each with its last fix, the regions it is inside now and its last reported
    /// battery level (when its app reports one).
    ///
    /// The list is read from the store's device rows through their last-seen index
    /// (``ServerStore/deviceList(tenant:prefix:after:limit:scan:)``; with a prefix, at most
    /// ``ServerConfiguration/deviceListScan`` devices examined a page), never under the tenant's lock;
    /// only the page's devices are then looked up in the engine and the battery table (O(page)).
    /// With `inside`, the devices inside that region come from the engine's inverse index
    /// (``TenantRuntime/devices(inside:)``: O(devices inside the region)).
    func addDeviceListRoutes(to v1: RouterGroup<APIRequestContext>) {
        let hub = self.hub
        let store = self.store
        let config = self.configuration

        v1.get("devices") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let query = request.uri.queryParameters
            let prefix = try request.identifierQuery("prefix")
            let inside = try request.identifierQuery("inside")
            var after: DeviceCursor? = nil
            if let a = query.get("after") {
                guard let c = DeviceCursor(text: String(a)) else {
                    throw Problem.badRequest(
                        field: "after",
                        detail: "after must be the next of a previous page (SECONDS|ID), not \"\(a.prefix(80))\"")
                }
                after = c
            }
            let runtime = await hub.runtime(tenant)
            var rows: [DeviceRow]
            var nextCursor: DeviceCursor? = nil
            if let inside {
                guard try await runtime.hasRegion(inside) else { throw Problem.notFound("no region \"\(inside)\"") }
                rows = try await runtime.devices(inside: inside).map {
                    DeviceRow(
                        id: $0.id, lastFix: FixJSON.json($0.lastFix),
                        lastSeen: $0.lastFix.timestamp.timeIntervalSince1970)
                }
                rows = DeviceRow.page(rows, prefix: prefix, after: after, limit: limit)
                if rows.count == limit, let last = rows.last {
                    nextCursor = DeviceCursor(lastSeen: last.lastSeen, id: last.id)
                }
            } else {
                let page = try await store.deviceList(
                    tenant: tenant, prefix: prefix, after: after, limit: limit, scan: config.deviceListScan)
                (rows, nextCursor) = (page.rows, page.next)
            }
            let insideNow = try await runtime.regionsInside(devices: rows.map(\.id))
            let batteries = try await store.batteries(tenant: tenant, devices: rows.map(\.id))
            let items: [ServerJSON] = rows.map { row in
                var fix = row.lastFix
                if case .object(var f) = fix, let t = f["timestamp"]?.doubleValue {
                    f["timestamp"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: t)))
                    fix = .object(f)
                }
                var item: [String: ServerJSON] = [
                    "id": .string(row.id), "lastFix": fix,
                    "inside": .array((insideNow[row.id] ?? []).map(ServerJSON.string)),
                ]
                if let b = batteries[row.id] {
                    item["battery"] = .object([
                        "percent": .number(b.percent),
                        "time": .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: b.time))),
                    ])
                }
                return .object(item)
            }
            let next: ServerJSON = nextCursor.map { .string($0.text) } ?? .null
            return .json(.object(["devices": .array(items), "next": next]))
        }

        v1.get("devices/:id/track") { request, context -> Response in
            let (tenant, device) = try context.tenantAndID()
            let (from, to) = try EventFilter.range(request)
            let limit = try request.intQuery("limit", default: 2_000, range: 1...DeviceTrack.maximumFixes)
            let track = try await DeviceTrack.read(
                from: from, to: to, limit: limit,
                batches: { before in
                    try await store.fixBatches(tenant: tenant, device: device, before: before, limit: 200)
                })
            return .json(
                .object([
                    "device": .string(device),
                    "fixes": .array(
                        track.fixes.map { f in
                            guard case .object(var o) = FixJSON.json(f) else { return .null }
                            o["timestamp"] = .string(FixJSON.formatRFC3339(f.timestamp))
                            return .object(o)
                        }),
                    "capped": .bool(track.capped),
                ]))
        }
    }
}

/// `GET /v1/devices/{id}/track`: the device's fixes in `[from, to)`, oldest first, read from
/// the journal newest batch first (the store's per-device index) until one ends before
/// `from`. Bounded: at most ``maximumBatches`` batches read and `limit` fixes kept (`capped`
/// then says the track was cut, its oldest part missing). Retention may have deleted older
/// batches (docs/server.md, "Retention").
struct DeviceTrack {
    static let maximumFixes = 10_000
    static let maximumBatches = 10_000
    var fixes: [LocationFix] = []
    var capped = false

    static func read(
        from: Date?, to: Date?, limit: Int, batches: (Int64?) async throws -> [JournalBatch]
    ) async throws -> DeviceTrack {
        var track = DeviceTrack()
        var before: Int64? = nil
        var read = 0
        pages: while read < maximumBatches {
            let page = try await batches(before)
            for batch in page {
                read += 1
                before = batch.position
                for f in batch.fixes.reversed() {
                    if let to, f.timestamp >= to { continue }
                    if let from, f.timestamp < from { break pages }
                    if track.fixes.count == limit {
                        track.capped = true
                        break pages
                    }
                    track.fixes.append(f)
                }
            }
            if page.count < 200 { break }
        }
        if read >= maximumBatches { track.capped = true }
        track.fixes.reverse()
        return track
    }
}

extension DeviceRow {
    /// The order of the device list: last seen first, then by id (UTF-8 bytes, as the stores
    /// compare text).
    static func precedes(_ a: (lastSeen: Double, id: String), _ b: (lastSeen: Double, id: String)) -> Bool {
        if a.lastSeen != b.lastSeen { return a.lastSeen > b.lastSeen }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    /// The page the store would answer, from rows in memory: ids starting with `prefix`, after
    /// the cursor, in list order, at most `limit`.
    static func page(_ rows: [DeviceRow], prefix: String?, after: DeviceCursor?, limit: Int) -> [DeviceRow] {
        let kept = rows.filter { row in
            if let prefix, !row.id.unicodeScalars.starts(with: prefix.unicodeScalars) { return false }
            if let a = after, !precedes((a.lastSeen, a.id), (row.lastSeen, row.id)) { return false }
            return true
        }
        return Array(kept.sorted { precedes(($0.lastSeen, $0.id), ($1.lastSeen, $1.id)) }.prefix(limit))
    }
}
