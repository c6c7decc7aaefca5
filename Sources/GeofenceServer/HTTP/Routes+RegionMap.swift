import Foundation
import Geofencing
import Hummingbird

extension GeofenceServer {
    /// The region reads of the dashboard: `GET /v1/regions/map` (what a map view draws, regions
    /// or clusters), `GET /v1/regions/search` (the region list) and
    /// `GET /v1/regions/{id}/figures` (entries, devices inside, dwell). The first two are
    /// answered from the tenant's ``RegionCatalog``, never under the tenant's lock.
    func addRegionMapRoutes(to v1: RouterGroup<APIRequestContext>) {
        let hub = self.hub
        let store = self.store
        let config = self.configuration
        let clock = self.clock
        let limiter = self.queryLimiter

        v1.get("regions/map") { request, context -> Response in
            let tenant = try context.requireTenant()
            guard let bbox = request.uri.queryParameters.get("bbox") else {
                throw Problem.badRequest(field: "bbox", detail: "query parameter bbox is required")
            }
            let box = try BoundingBox.parse(String(bbox))
            let zoom = try request.doubleQuery("zoom", range: 0...30)
            let limit = try request.intQuery("limit", default: 1_000, range: 1...config.maxPageSize)
            let runtime = await hub.runtime(tenant)
            let text = try await limiter.run(tenant: tenant) {
                try await runtime.loadedCatalog().readWithText { index, texts in
                    MapAnswer.answer(index, box: box, zoom: zoom, limit: limit).text(&texts)
                }
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: text)))
        }

        v1.get("regions/search") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 50, range: 1...config.maxPageSize)
            // Normalized as the ids it is matched against are (Identifier).
            let text = Identifier.normalized(request.uri.queryParameters.get("q").map { String($0) } ?? "")
            guard text.unicodeScalars.count <= Identifier.maximumLength else {
                throw Problem.badRequest(field: "q", detail: "q holds at most \(Identifier.maximumLength) characters")
            }
            let after = try request.identifierQuery("after")
            let runtime = await hub.runtime(tenant)
            let page = try await limiter.run(tenant: tenant) {
                try await runtime.loadedCatalog().read { $0.search(text, after: after, limit: limit) }
            }
            return .json(
                .object([
                    "regions": .array(page.regions.map(RegionSummary.json)),
                    "next": page.next.map(ServerJSON.string) ?? .null,
                    "matched": .number(Double(page.matched)),
                ]))
        }

        v1.get("regions/:id/figures") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            let runtime = await hub.runtime(tenant)
            guard try await runtime.hasRegion(id) else { throw Problem.notFound("no region \"\(id)\"") }
            let now = clock()
            let figures = try await RegionFigures.compute(
                region: id, now: now, inside: try await runtime.devices(inside: id).count,
                events: { filter, before in
                    try await store.eventHistory(
                        tenant: tenant, filter: filter, before: before, limit: 1_000, scan: config.historyScanEvents)
                })
            return .json(figures.json)
        }
    }
}

/// What `GET /v1/regions/map` answers for a view: the regions overlapping it when there are at
/// most `limit`, otherwise clusters — the regions counted by the cell of their centre, cells of
/// about 64 px at the view's zoom (``RegionMapIndex`` level `zoom + 2`, coarser when the box
/// would cover more than ``maximumCells`` cells).
enum MapAnswer {
    case regions([Region])
    case clusters([RegionMapIndex.Cluster], level: Int)

    /// The most cells one answer walks.
    static let maximumCells = 4_096

    static func answer(_ index: RegionMapIndex, box: BoundingBox, zoom: Double, limit: Int) -> MapAnswer {
        let level = RegionMapIndex.level(Int(zoom) + 2, for: box, cellsAtMost: maximumCells)
        if index.centresSurelyInside(box, level: level) <= limit,
            let regions = index.regions(overlapping: box, cap: limit)
        {
            return .regions(regions.sorted { $0.identifier < $1.identifier })
        }
        return .clusters(index.clusters(in: box, level: level), level: level)
    }

    /// The answer as a JSON tree: what ``text(_:)`` writes (the tests compare the two).
    var json: ServerJSON {
        switch self {
        case .regions(let regions):
            return .object([
                "regions": .array(regions.map(RegionJSON.feature)), "clusters": .array([]),
                "matched": .number(Double(regions.count)),
            ])
        case .clusters(let clusters, let level):
            func r(_ x: Double) -> ServerJSON { .number((x * 1e6).rounded() / 1e6) }
            return .object([
                "regions": .array([]),
                "clusters": .array(
                    clusters.map { c in
                        .object([
                            "count": .number(Double(c.count)), "longitude": r(c.longitude), "latitude": r(c.latitude),
                            "bbox": .array([r(c.west), r(c.south), r(c.east), r(c.north)]),
                        ])
                    }),
                "matched": .number(Double(clusters.reduce(0) { $0 + $1.count })),
                "cellDegrees": .number(RegionMapIndex.cellDegrees(level)),
            ])
        }
    }
}

/// A region as the region list shows it: id, name, source, tier parent, shape and box.
enum RegionSummary {
    static func json(_ r: Region) -> ServerJSON {
        let b = RegionMapIndex.bounds(of: r)
        func d(_ x: Double) -> ServerJSON { .number((x * 1e6).rounded() / 1e6) }
        var o: [String: ServerJSON] = [
            "id": .string(r.identifier),
            "bbox": .array([d(b.west), d(b.south), d(b.east), d(b.north)]),
        ]
        switch r.shape {
        case .circle: o["shape"] = .string("circle")
        case .polygon: o["shape"] = .string("polygon")
        case .multiPolygon: o["shape"] = .string("multipolygon")
        }
        if let name = r.metadata["name"] { o["name"] = .string(name) }
        if let source = r.source { o["source"] = .string(source) }
        if let parent = r.parent { o["parent"] = .string(parent) }
        return .object(o)
    }
}

/// `GET /v1/regions/{id}/figures`: entries since midnight UTC and over the last 7 days,
/// devices inside now, and the median time from an entry to the same device's next exit among
/// the visits of the last 7 days that ended. Reads at most ``maximumEvents`` of the region's
/// events of the week and at most ``maximumPages`` pages of its history (through the store's
/// region index, each page examining a bounded number of events); `capped` says when there
/// may have been more.
struct RegionFigures {
    static let maximumEvents = 10_000
    static let maximumPages = 20
    static let week: TimeInterval = 7 * 86_400

    var region: String
    var entriesToday = 0
    var entriesThisWeek = 0
    var insideNow = 0
    var medianDwellSeconds: Double? = nil
    var visitsMeasured = 0
    var since: Date
    var capped = false

    static func compute(
        region: String, now: Date, inside: Int,
        events: (EventFilter, Int64?) async throws -> HistoryPage
    ) async throws -> RegionFigures {
        let since = now.addingTimeInterval(-week)
        let midnight = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        var figures = RegionFigures(region: region, insideNow: inside, since: since)
        var seen: [(device: String, kind: String, time: Date)] = []
        var before: Int64? = nil
        let filter = EventFilter(region: region, from: since)
        var pages = 0
        var more = true
        while more, seen.count < maximumEvents, pages < maximumPages {
            let page = try await events(filter, before)
            pages += 1
            for e in page.events {
                guard let device = e["device"]?.stringValue, let kind = e["event"]?.stringValue,
                    let t = e["time"]?.stringValue.flatMap(FixJSON.parseRFC3339)
                else { continue }
                seen.append((device, kind, t))
            }
            before = page.next
            more = page.next != nil
        }
        figures.capped = more
        var entered: [String: Date] = [:]
        var dwells: [Double] = []
        for e in seen.sorted(by: { $0.time < $1.time }) {
            switch e.kind {
            case "enter":
                figures.entriesThisWeek += 1
                if e.time >= midnight { figures.entriesToday += 1 }
                entered[e.device] = e.time
            case "exit":
                if let t = entered.removeValue(forKey: e.device) { dwells.append(e.time.timeIntervalSince(t)) }
            default: break
            }
        }
        dwells.sort()
        figures.visitsMeasured = dwells.count
        if !dwells.isEmpty {
            let m = dwells.count / 2
            figures.medianDwellSeconds = dwells.count % 2 == 1 ? dwells[m] : (dwells[m - 1] + dwells[m]) / 2
        }
        return figures
    }

    var json: ServerJSON {
        .object([
            "region": .string(region), "entriesToday": .number(Double(entriesToday)),
            "entriesThisWeek": .number(Double(entriesThisWeek)), "insideNow": .number(Double(insideNow)),
            "medianDwellSeconds": medianDwellSeconds.map { .number(($0 * 10).rounded() / 10) } ?? .null,
            "visitsMeasured": .number(Double(visitsMeasured)), "since": .string(FixJSON.formatRFC3339(since)),
            "capped": .bool(capped),
        ])
    }
}
