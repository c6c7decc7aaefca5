import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

@Suite("Dashboard reads: the map, the region list, devices, history, figures")
struct DashboardReadTests {
    static func importRegions(_ h: Harness, key: String, _ features: [String]) async throws {
        let r = try await h.call(
            .POST, "/v1/regions/import", key: key,
            body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        #expect(r.status == 200, "\(r)")
    }

    // MARK: Map

    @Test("the map answers the regions of a view when they are few, clusters counting them all when many")
    func mapRegionsOrClusters() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            // 400 circles of 30 m on a 20 × 20 grid 0.001° apart in Shanghai, one in Paris, two
            // either side of 180°.
            var features = (0..<400).map { i in
                circleFeature(
                    "sh-\(i)", lat: 31.20 + Double(i / 20) * 0.001, lon: 121.40 + Double(i % 20) * 0.001, radius: 30)
            }
            features += [
                circleFeature("paris", lat: 48.85, lon: 2.29, radius: 100),
                circleFeature("fiji-e", lat: -17, lon: 179.9, radius: 100),
                circleFeature("fiji-w", lat: -17, lon: -179.9, radius: 100),
            ]
            try await Self.importRegions(h, key: key, features)
            let city = "bbox=121.39,31.19,121.43,31.23"
            let few = try await h.call(.GET, "/v1/regions/map?\(city)&zoom=15&limit=1000", key: key)
            #expect(few.status == 200, "\(few)")
            #expect(DashboardTests.ids(few).count == 400 && few["clusters"]?.array?.isEmpty == true)
            #expect(few["matched"]?.number == 400)
            let many = try await h.call(.GET, "/v1/regions/map?\(city)&zoom=15&limit=100", key: key)
            #expect(DashboardTests.ids(many).isEmpty)
            let clusters = many["clusters"]?.array ?? []
            #expect(clusters.reduce(0) { $0 + ($1["count"]?.number ?? 0) } == 400, "\(many)")
            #expect(many["cellDegrees"]?.number == 360.0 / 65_536) // zoom 15 + 2, capped at the finest level
            // The whole world at zoom 1: clusters counting all 403, in a few cells.
            let world = try await h.call(.GET, "/v1/regions/map?bbox=-180,-90,180,90&zoom=1&limit=100", key: key)
            let cells = world["clusters"]?.array ?? []
            #expect(cells.reduce(0) { $0 + ($1["count"]?.number ?? 0) } == 403)
            #expect(cells.count <= 4, "\(world)")
            // Across the antimeridian: both Fiji circles, as regions.
            let fiji = try await h.call(.GET, "/v1/regions/map?bbox=179,-18,-179,-16&zoom=8", key: key)
            #expect(DashboardTests.ids(fiji) == ["fiji-e", "fiji-w"])
        }
    }

    @Test(
        "a map request without bbox or zoom, or with them malformed, is a 400 naming it",
        arguments: [
            ("zoom=3", "bbox"), ("bbox=0,0,1,1", "zoom"), ("bbox=0,0,1&zoom=3", "bbox"),
            ("bbox=0,0,1,1&zoom=31", "zoom"),
            ("bbox=0,0,1,1&zoom=x", "zoom"), ("bbox=0,0,1,1&zoom=3&limit=0", "limit"),
        ])
    func mapBadQuery(_ query: String, _ field: String) async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let r = try await h.call(.GET, "/v1/regions/map?\(query)", key: key)
            #expect(r.status == 400 && r["field"]?.string == field, "\(query): \(r)")
        }
    }

    @Test("map and bbox reads are answered while the tenant's lock is held (ingestion never waits for them)")
    func readsWithoutTheLock() async throws {
        let store = try await GeofenceServer.openStore(Harness.temporaryDatabase(), logger: Harness.quietLogger())
        let runtime = SnapshotTests.runtime(store)
        _ = try await runtime.upsert(
            [Region.circle(identifier: "a", center: try Coordinate(latitude: 31, longitude: 121), radius: 100)],
            create: true, now: Date())
        await runtime.acquire() // as a long fix batch would
        let found = try await withThrowingTaskGroup(of: [String]?.self) { group in
            group.addTask {
                try await runtime.regions(overlapping: BoundingBox(west: 120, south: 30, east: 122, north: 32))
                    .map(\.identifier)
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20)) // only reached if the read waits for the lock
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        await runtime.release()
        #expect(found == ["a"])
        try await store.close()
    }

    // MARK: Region list

    @Test("the region list searches ids and names, pages by id, and says where each region is")
    func regionSearch() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            try await Self.importRegions(
                h, key: key,
                [
                    circleFeature(
                        "depot-1", lat: 31, lon: 121, radius: 100, extra: #","name":"North Depot","source":"acme""#),
                    circleFeature(
                        "depot-2", lat: 31.1, lon: 121, radius: 100, extra: #","name":"South depot","parent":"city""#),
                    circleFeature("city", lat: 31.05, lon: 121, radius: 20_000, extra: #","name":"Shanghai""#),
                    #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[179,-17],[-179,-17],[-179,-16],[179,-16],[179,-17]]]},"properties":{"id":"dateline"}}"#,
                ])
            let depots = try await h.call(.GET, "/v1/regions/search?q=DEPOT&limit=1", key: key)
            #expect(depots.status == 200, "\(depots)")
            #expect(depots["matched"]?.number == 2)
            let first = try #require(depots["regions"]?.array?.first)
            #expect(first["id"]?.string == "depot-1" && first["name"]?.string == "North Depot")
            #expect(first["source"]?.string == "acme" && first["shape"]?.string == "circle")
            #expect(depots["next"]?.string == "depot-1")
            let second = try await h.call(.GET, "/v1/regions/search?q=DEPOT&limit=1&after=depot-1", key: key)
            #expect(second["regions"]?.array?.first?["parent"]?.string == "city")
            #expect(second["next"] == .null)
            // The polygon across 180° has a box 2° wide, east of its west edge.
            let line = try await h.call(.GET, "/v1/regions/search?q=dateline", key: key)
            let box = line["regions"]?.array?.first?["bbox"]?.array?.compactMap(\.number) ?? []
            #expect(box.count == 4 && abs((box[2] - box[0]) - 2) < 1e-9, "\(line)")
            #expect(try await h.call(.GET, "/v1/regions/search", key: key)["matched"]?.number == 4)
        }
    }

    // MARK: Devices

    /// Fixes every 10 s: `outside` fixes 2 km east of (31, 121), `inside` fixes at it, then
    /// `after` fixes away again.
    static func visit(
        _ h: Harness, key: String, device: String, start: Double, inside: Int, after: Int = 0
    ) async throws
        -> [ServerJSON]
    {
        var fixes: [String] = []
        var t = start
        for _ in 0..<4 {
            fixes.append(fixJSON(31, 121.02, t: t))
            t += 10
        }
        for _ in 0..<inside {
            fixes.append(fixJSON(31, 121, t: t))
            t += 10
        }
        for _ in 0..<after {
            fixes.append(fixJSON(31, 121.02, t: t))
            t += 10
        }
        let r = try await h.call(
            .POST, "/v1/devices/\(device)/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
        #expect(r.status == 200, "\(r)")
        return r["events"]?.array ?? []
    }

    @Test(
        "the device list is last seen first, filters by prefix or region, and pages without gaps",
        arguments: StoreKind.allCases)
    func deviceList(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            try await Self.importRegions(h, key: key, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            // van-0 … van-4 end inside the yard (last fix at t0 + 100·i + 90); bike-0 and bike-1
            // pass through (last fix at t0 + 100·i + 200).
            for i in 0..<5 {
                _ = try await Self.visit(h, key: key, device: "van-\(i)", start: t0 + Double(100 * i), inside: 6)
            }
            for i in 0..<2 {
                _ = try await Self.visit(
                    h, key: key, device: "bike-\(i)", start: t0 + 50 + Double(100 * i), inside: 6, after: 6)
            }
            let all = try await h.call(.GET, "/v1/devices", key: key)
            #expect(all.status == 200, "\(all)")
            let ids = all["devices"]?.array?.compactMap { $0["id"]?.string }
            #expect(ids == ["van-4", "van-3", "bike-1", "van-2", "bike-0", "van-1", "van-0"], "\(all)")
            let van4 = try #require(all["devices"]?.array?.first)
            #expect(van4["inside"] == .array([.string("yard")]))
            #expect(
                van4["lastFix"]?["timestamp"]?.string
                    == FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 400 + 90)))
            #expect(van4["lastFix"]?["horizontalAccuracy"]?.number == 10)
            #expect(all["next"] == .null)
            // Pages of two, followed by next, give the same list.
            var paged: [String] = []
            var after: String? = nil
            for _ in 0..<10 {
                let q = after.map { "&after=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" } ?? ""
                let page = try await h.call(.GET, "/v1/devices?limit=2\(q)", key: key)
                paged += page["devices"]?.array?.compactMap { $0["id"]?.string } ?? []
                guard let n = page["next"]?.string else { break }
                after = n
            }
            #expect(paged == ids)
            let bikes = try await h.call(.GET, "/v1/devices?prefix=bike", key: key)
            #expect(bikes["devices"]?.array?.compactMap { $0["id"]?.string } == ["bike-1", "bike-0"])
            #expect(bikes["devices"]?.array?.first?["inside"] == .array([]))
            let inYard = try await h.call(.GET, "/v1/devices?inside=yard&limit=2", key: key)
            #expect(inYard["devices"]?.array?.compactMap { $0["id"]?.string } == ["van-4", "van-3"])
            let rest = try await h.call(
                .GET,
                "/v1/devices?inside=yard&after=\(inYard["next"]!.string!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                key: key)
            #expect(rest["devices"]?.array?.compactMap { $0["id"]?.string } == ["van-2", "van-1", "van-0"])
            #expect(try await h.call(.GET, "/v1/devices?inside=nowhere", key: key).status == 404)
            for bad in ["after=x", "after=1%7C", "after=nan%7Cv", "prefix=", "limit=0"] {
                let r = try await h.call(.GET, "/v1/devices?\(bad)", key: key)
                #expect(r.status == 400, "\(bad): \(r)")
            }
            #expect(try await h.call(.GET, "/v1/devices", key: try await h.key("other"))["devices"] == .array([]))
        }
    }

    // MARK: History

    @Test(
        "history filters by device, region, kind and time, pages newest first, and exports CSV and GeoJSON",
        arguments: StoreKind.allCases)
    func history(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            try await Self.importRegions(
                h, key: key,
                [
                    circleFeature("yard", lat: 31, lon: 121, radius: 300),
                    circleFeature("gate", lat: 31, lon: 121.001, radius: 300),
                ])
            let t0 = h.clock.date.timeIntervalSince1970 - 86_400
            var all: [ServerJSON] = []
            for (i, device) in ["a", "b", #"=cmd|"x""#].enumerated() {
                let path = device.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                all += try await Self.visit(
                    h, key: key, device: path, start: t0 + Double(i) * 1_000, inside: 6, after: 6)
            }
            #expect(all.count == 12, "\(all)") // enter and exit of two regions per device
            let newest = try await h.call(.GET, "/v1/events/history?limit=5", key: key)
            #expect(newest.status == 200, "\(newest)")
            let page1 = newest["events"]?.array ?? []
            #expect(page1.compactMap { $0["id"]?.string } == all.reversed().prefix(5).compactMap { $0["id"]?.string })
            let next = try #require(newest["next"]?.string)
            let page2 = try await h.call(.GET, "/v1/events/history?limit=100&before=\(next)", key: key)
            #expect(page2["events"]?.array?.count == 7 && page2["next"] == .null)

            let bYard = try await h.call(.GET, "/v1/events/history?device=b&region=yard", key: key)
            #expect(bYard["events"]?.array?.map { $0["event"]?.string } == ["exit", "enter"], "\(bYard)")
            let exits = try await h.call(.GET, "/v1/events/history?kind=exit", key: key)
            #expect(exits["events"]?.array?.count == 6)
            // The time range holds device b's visit only (from inclusive, to exclusive).
            let from = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 1_000))
            let to = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 2_000))
            let window = try await h.call(.GET, "/v1/events/history?from=\(from)&to=\(to)", key: key)
            #expect(Set(window["events"]?.array?.compactMap { $0["device"]?.string } ?? []) == ["b"], "\(window)")
            #expect(window["events"]?.array?.count == 4)

            let csv = try await h.call(.GET, "/v1/events/history?format=csv&kind=enter&region=yard", key: key)
            #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
            let lines = csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(lines.first == "cursor,time,event,device,region,latitude,longitude,crossedAt,id")
            #expect(lines.count == 4, "\(csv.text)")
            // A hostile id is quoted, its quotes doubled, and kept from a spreadsheet's formulas.
            #expect(lines[1].contains(#","'=cmd|""x""","#), "\(lines[1])")
            let geo = try await h.call(.GET, "/v1/events/history?format=geojson&device=a", key: key)
            #expect(geo.header("Content-Type") == "application/geo+json")
            #expect(geo["type"]?.string == "FeatureCollection" && geo["features"]?.array?.count == 4)
            // Newest first: a's exit, at the fix outside that confirmed it.
            #expect(geo["features"]?.array?.first?["geometry"]?["coordinates"]?.array?.first?.number == 121.02)
            #expect(geo["features"]?.array?.first?["properties"]?["event"]?.string == "exit")

            for (bad, field) in [
                ("kind=arrive", "kind"), ("from=yesterday", "from"),
                ("format=xml", "format"),
                ("before=-1", "before"), ("device=", "device"),
            ] {
                let r = try await h.call(.GET, "/v1/events/history?\(bad)", key: key)
                #expect(r.status == 400 && r["field"]?.string == field, "\(bad): \(r)")
            }
            #expect(try await h.call(.GET, "/v1/events/history", key: try await h.key("other"))["events"] == .array([]))
            let reversed = try await h.call(.GET, "/v1/events/history?from=\(to)&to=\(from)", key: key)
            #expect(reversed.status == 200 && reversed["events"] == .array([]), "to before from: an empty range")
        }
    }

    // MARK: Track

    @Test(
        "a track is the device's fixes in the period, oldest first, capped to the newest", arguments: StoreKind.allCases
    )
    func track(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            let t0 = h.clock.date.timeIntervalSince1970 - 10_000
            // Three batches of device a (fixes 10 s apart), one of device b between them.
            for (device, start, count) in [("a", t0, 5), ("b", t0 + 50, 3), ("a", t0 + 100, 5), ("a", t0 + 200, 5)] {
                let fixes = (0..<count).map { fixJSON(31 + Double($0) * 0.001, 121, t: start + Double($0) * 10) }
                let r = try await h.call(
                    .POST, "/v1/devices/\(device)/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
                #expect(r.status == 200, "\(r)")
            }
            func times(_ r: Reply) -> [Double] {
                (r["fixes"]?.array ?? []).compactMap {
                    $0["timestamp"]?.string.flatMap(FixJSON.parseRFC3339)?.timeIntervalSince1970
                }
            }
            let all = try await h.call(.GET, "/v1/devices/a/track", key: key)
            #expect(all.status == 200, "\(all)")
            let expected = [0, 10, 20, 30, 40, 100, 110, 120, 130, 140, 200, 210, 220, 230, 240].map { t0 + Double($0) }
            #expect(times(all) == expected)
            #expect(all["capped"] == .bool(false))
            // [t0 + 20, t0 + 120): across batches, from inclusive, to exclusive.
            let from = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 20))
            let to = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 120))
            let window = try await h.call(.GET, "/v1/devices/a/track?from=\(from)&to=\(to)", key: key)
            #expect(times(window) == [20, 30, 40, 100, 110].map { t0 + Double($0) })
            let newest = try await h.call(.GET, "/v1/devices/a/track?limit=3", key: key)
            #expect(times(newest) == [220, 230, 240].map { t0 + Double($0) })
            #expect(newest["capped"] == .bool(true))
            #expect(times(try await h.call(.GET, "/v1/devices/nobody/track", key: key)).isEmpty)
            let reversed = try await h.call(.GET, "/v1/devices/a/track?from=\(to)&to=\(from)", key: key)
            #expect(reversed.status == 200 && times(reversed).isEmpty, "to before from: an empty range, \(reversed)")
            let bad = try await h.call(.GET, "/v1/devices/a/track?from=yesterday", key: key)
            #expect(bad.status == 400 && bad["field"]?.string == "from", "\(bad)")
        }
    }

    // MARK: Figures

    @Test("figures count entries today and this week, devices inside now and the median visit")
    func figures() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000)) // 2027-01-15T08:00:00Z
        try await Harness.run(clock: clock) { h in
            let key = try await h.key("acme")
            try await Self.importRegions(h, key: key, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            let now = clock.date.timeIntervalSince1970
            // Three visits that ended (60, 120 and 600 s inside, 9 days, 2 days and 1 h ago) and a
            // device inside now (entered 10 min ago).
            _ = try await Self.visit(h, key: key, device: "old", start: now - 9 * 86_400, inside: 30, after: 6)
            _ = try await Self.visit(h, key: key, device: "a", start: now - 2 * 86_400, inside: 6, after: 6)
            _ = try await Self.visit(h, key: key, device: "b", start: now - 3_600, inside: 12, after: 6)
            _ = try await Self.visit(h, key: key, device: "c", start: now - 600, inside: 6)
            let r = try await h.call(.GET, "/v1/regions/yard/figures", key: key)
            #expect(r.status == 200, "\(r)")
            #expect(r["entriesToday"]?.number == 2)
            #expect(r["entriesThisWeek"]?.number == 3)
            #expect(r["insideNow"]?.number == 1)
            #expect(r["visitsMeasured"]?.number == 2)
            // The visits of a (6 fixes inside) and b (12): the median of two is their mean.
            let events = try await h.call(.GET, "/v1/events/history?region=yard", key: key)["events"]?.array ?? []
            func visit(_ d: String) -> Double {
                let t = events.filter { $0["device"]?.string == d }.compactMap {
                    $0["time"]?.string.flatMap(FixJSON.parseRFC3339)
                }
                return t[0].timeIntervalSince(t[1])
            }
            #expect(r["medianDwellSeconds"]?.number == (visit("a") + visit("b")) / 2)
            #expect(try await h.call(.GET, "/v1/regions/nowhere/figures", key: key).status == 404)
        }
    }
}
