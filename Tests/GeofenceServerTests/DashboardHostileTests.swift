import Foundation
import Testing

@testable import GeofenceServer

/// The dashboard's read endpoints (issue 34) against requests they were not designed for:
/// filters that match little of a large history, limits and cursors at their edges, ids made
/// of the characters a cursor, a CSV or a URL gives meaning to, and battery reports that are
/// absurd or late.
@Suite("Dashboard reads under hostile requests: bounded pages, typed problems, exports, batteries")
struct DashboardHostileTests {
    static func encoded(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }

    /// Follows `next` from `path` (which has a query already), collecting every page.
    static func pages(_ h: Harness, key: String, _ path: String, cursor: String = "before") async throws -> [Reply] {
        var replies: [Reply] = []
        var next: String? = nil
        for _ in 0..<100 {
            let r = try await h.call(.GET, path + (next.map { "&\(cursor)=\(encoded($0))" } ?? ""), key: key)
            #expect(r.status == 200, "\(r)")
            replies.append(r)
            guard let n = r["next"]?.string else { break }
            next = n
        }
        return replies
    }

    /// The `id` of every item under `list` in `replies`, in order.
    static func ids(_ replies: [Reply], _ list: String) -> [String] {
        let items: [ServerJSON] = replies.flatMap { (r: Reply) -> [ServerJSON] in r[list]?.array ?? [] }
        return items.compactMap { (item: ServerJSON) -> String? in item["id"]?.string }
    }

    // MARK: History

    @Test(
        "a history filter the indexes cannot select examines a bounded number of events a page and pages on",
        arguments: StoreKind.allCases)
    func historyScanIsBounded(_ kind: StoreKind) async throws {
        try await Harness.run(kind, configure: { $0.historyScanEvents = 4 }) { h in
            let key = try await h.key("acme")
            try await DashboardReadTests.importRegions(
                h, key: key,
                [
                    circleFeature("yard", lat: 31, lon: 121, radius: 300),
                    circleFeature("gate", lat: 31, lon: 121.001, radius: 300),
                ])
            let t0 = h.clock.date.timeIntervalSince1970 - 86_400
            var all: [ServerJSON] = []
            for (i, device) in ["a", "b", "c"].enumerated() {
                all += try await DashboardReadTests.visit(
                    h, key: key, device: device, start: t0 + Double(i) * 1_000, inside: 6, after: 6)
            }
            #expect(all.count == 12, "\(all)")
            let newestFirst = all.reversed().compactMap { (e: ServerJSON) -> String? in e["id"]?.string }

            // No dwell events: every page examines at most 4 events, finds none, and says where
            // to go on; the last says there is nothing older.
            let dwell = try await Self.pages(h, key: key, "/v1/events/history?kind=dwell&limit=2")
            #expect(dwell.count == 4, "12 events, 4 a page, then the empty end: \(dwell)")
            #expect(dwell.allSatisfy { $0["events"] == .array([]) })
            #expect(dwell.last?["next"] == .null)

            // Exits, followed page by page, are exactly the exits, newest first.
            let exits = try await Self.pages(h, key: key, "/v1/events/history?kind=exit&limit=2")
            let exitIDs = Self.ids(exits, "events")
            let expected = all.reversed().filter { (e: ServerJSON) -> Bool in e["event"]?.string == "exit" }
                .compactMap { (e: ServerJSON) -> String? in e["id"]?.string }
            #expect(exitIDs == expected)
            #expect(exits.allSatisfy { ($0["events"]?.array?.count ?? 0) <= 2 })

            // A time range: device b's visit only.
            let from = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 1_000))
            let to = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + 2_000))
            let window = try await Self.pages(h, key: key, "/v1/events/history?from=\(from)&to=\(to)&limit=3")
            let windowEvents: [ServerJSON] = window.flatMap { (r: Reply) -> [ServerJSON] in r["events"]?.array ?? [] }
            let windowDevices = windowEvents.compactMap { (e: ServerJSON) -> String? in e["device"]?.string }
            #expect(windowDevices == ["b", "b", "b", "b"], "\(window)")

            // Without such a filter every page is full until the last.
            let plain = try await Self.pages(h, key: key, "/v1/events/history?limit=5")
            #expect(plain.map { $0["events"]?.array?.count ?? -1 } == [5, 5, 2])
            #expect(Self.ids(plain, "events") == newestFirst)

            // CSV and GeoJSON page the same way, by the Geofence-Next header: an empty page has no
            // cursor of its own to go on from.
            var csvEvents = 0
            var csvPages = 0
            var before = ""
            var ended = false
            while csvPages < 10 {
                let csv = try await h.call(.GET, "/v1/events/history?kind=enter&format=csv&limit=2\(before)", key: key)
                #expect(csv.status == 200 && csv.text.hasPrefix(EventExport.columns.joined(separator: ",") + "\r\n"))
                csvPages += 1
                csvEvents += csv.text.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count - 1
                guard let next = csv.header("Geofence-Next") else {
                    ended = true
                    break
                }
                before = "&before=\(next)"
            }
            #expect(csvEvents == 6 && ended, "\(csvEvents) events in \(csvPages) pages")
            let geo = try await h.call(.GET, "/v1/events/history?kind=dwell&format=geojson&limit=2", key: key)
            #expect(geo["features"] == .array([]) && geo.header("Geofence-Next") != nil, "\(geo)")
        }
    }

    @Test(
        "a device prefix examines a bounded number of devices a page and pages on to every match",
        arguments: StoreKind.allCases)
    func devicePrefixScanIsBounded(_ kind: StoreKind) async throws {
        try await Harness.run(kind, configure: { $0.deviceListScan = 3 }) { h in
            let key = try await h.key("acme")
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            // Last seen: car-9 newest … car-0 oldest; van-a and van-b among them.
            var ids = (0..<10).map { "car-\($0)" }
            ids.insert("van-a", at: 2)
            ids.insert("van-b", at: 8)
            for (i, id) in ids.enumerated() {
                let r = try await h.call(
                    .POST, "/v1/devices/\(id)/locations", key: key, body: "[\(fixJSON(52, 13, t: t0 + Double(i)))]")
                #expect(r.status == 200, "\(r)")
            }
            let vans = try await Self.pages(h, key: key, "/v1/devices?prefix=van-&limit=2", cursor: "after")
            #expect(Self.ids(vans, "devices") == ["van-b", "van-a"])
            #expect(
                vans.count == 5 && vans.last?["next"] == .null, "12 devices, 3 examined a page, then the end: \(vans)")
            #expect(vans.allSatisfy { ($0["devices"]?.array?.count ?? 0) <= 1 }, "\(vans)")
            let none = try await h.call(.GET, "/v1/devices?prefix=bus&limit=1", key: key)
            #expect(none["devices"] == .array([]) && none["next"]?.string != nil, "\(none)")
            // Without a prefix every page is full until the last.
            let all = try await Self.pages(h, key: key, "/v1/devices?limit=5", cursor: "after")
            #expect(Self.ids(all, "devices") == ids.reversed() && all.count == 3)
        }
    }

    // MARK: Limits, cursors, times

    @Test("limits and cursors at their edges are 400 problems naming the parameter, never a 500")
    func edgesAreTypedProblems() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            let bbox = "bbox=-10,-10,10,10"
            let paths = [
                "/v1/devices?", "/v1/events/history?", "/v1/devices/a/track?", "/v1/regions/search?",
                "/v1/regions/map?\(bbox)&zoom=3&", "/v1/regions?\(bbox)&", "/v1/regions?",
            ]
            let limits = [
                "0", "-1", "10001", "99999999999999999999", "abc", "", "1.5", "%2B5", "05", "1e3", "%F0%9F%98%80",
                "10%2C20",
            ]
            for path in paths {
                for limit in limits {
                    let r = try await h.call(.GET, "\(path)limit=\(limit)", key: key)
                    #expect(r.status == 400 && r["field"]?.string == "limit", "\(path)limit=\(limit): \(r)")
                }
            }
            let cursors: [(String, String)] = [
                ("/v1/events/history?before=abc", "before"), ("/v1/events/history?before=1.5", "before"),
                ("/v1/events/history?before=99999999999999999999", "before"),
                ("/v1/events/history?before=", "before"), ("/v1/devices?after=1%7C", "after"),
                ("/v1/devices?after=1e999%7Cx", "after"), ("/v1/devices?after=%7Cx", "after"),
                ("/v1/devices?after=0x10%7Cx", "after"), ("/v1/regions/search?after=", "after"),
                ("/v1/regions?after=", "after"), ("/v1/events/history?from=2026-13-01T00:00:00Z", "from"),
                ("/v1/events/history?to=2026-02-30T00:00:00Z", "to"), ("/v1/devices/a/track?from=now", "from"),
                ("/v1/events/history?kind=ENTER", "kind"), ("/v1/events/history?format=CSV", "format"),
                // Numbers are decimal: not the hexadecimal, nan or inf that Double(_:) reads.
                ("/v1/regions/map?bbox=0x10,-10,10,10&zoom=3", "bbox"),
                ("/v1/regions?bbox=-10,-10,10,infinity", "bbox"),
                ("/v1/regions/map?\(bbox)&zoom=0x1p3", "zoom"), ("/v1/regions/nearby?lat=0x10&lon=1", "lat"),
                ("/v1/regions/nearby?lat=1&lon=nan", "lon"),
                ("/v1/ingest/osmand?key=\(key)&id=v&location=0x1p3,13.4", "location"),
            ]
            for (path, field) in cursors {
                let r = try await h.call(.GET, path, key: key)
                #expect(r.status == 400 && r["field"]?.string == field, "\(path): \(r)")
            }
            // Forged cursors that are well formed, absurd times and names of nothing: empty pages.
            for path in [
                "/v1/events/history?before=0", "/v1/events/history?before=9223372036854775807",
                "/v1/devices?after=-1e99%7Czzz", "/v1/devices?after=1e99%7C%F0%9F%9A%9A",
                "/v1/events/history?from=9999-12-31T23:59:59Z", "/v1/events/history?to=0000-01-01T00:00:00Z",
                "/v1/events/history?device=nobody&region=nowhere", "/v1/devices/nobody/track",
                "/v1/devices/a/track?from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z",
                "/v1/devices?prefix=%F0%9F%9A%9A", "/v1/regions/search?q=%25%7C%2C%22&after=%F0%9F%9A%9A",
            ] {
                let r = try await h.call(.GET, path, key: key)
                #expect(r.status == 200, "\(path): \(r)")
                let items = r["events"] ?? r["devices"] ?? r["fixes"] ?? r["regions"]
                #expect(items == .array([]), "\(path): \(r)")
            }
        }
    }

    // MARK: Ids that mean something elsewhere

    @Test(
        "ids holding |, %, comma, quotes, emoji or a formula page, filter and export intact",
        arguments: StoreKind.allCases)
    func hostileIDs(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            try await DashboardReadTests.importRegions(
                h, key: key, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            let ids = ["a|b", "50%", "x,y", #""q""#, "🚚", "e\u{301}", "=1+1", "@SUM(A1)", "-2", "+3", "1|2|3"]
            let t0 = h.clock.date.timeIntervalSince1970 - 86_400
            for (i, id) in ids.enumerated() {
                // Two devices share each last-seen second, so ties are broken by id across pages.
                _ = try await DashboardReadTests.visit(
                    h, key: key, device: Self.encoded(id), start: t0 + Double(i / 2) * 1_000, inside: 6, after: 6)
            }
            let whole = try await h.call(.GET, "/v1/devices", key: key)
            let listed = Self.ids([whole], "devices")
            #expect(Set(listed) == Set(ids) && listed.count == ids.count, "\(whole)")
            let paged = try await Self.pages(h, key: key, "/v1/devices?limit=1", cursor: "after")
            #expect(Self.ids(paged, "devices") == listed)
            let truck = try await h.call(.GET, "/v1/devices?prefix=\(Self.encoded("🚚"))", key: key)
            #expect(Self.ids([truck], "devices") == ["🚚"])
            let bars = try await h.call(.GET, "/v1/devices?prefix=1%7C", key: key)
            #expect(Self.ids([bars], "devices") == ["1|2|3"])
            for id in ids {
                let r = try await h.call(.GET, "/v1/events/history?device=\(Self.encoded(id))", key: key)
                #expect(r["events"]?.array?.count == 2, "\(id): \(r)")
                #expect(r["events"]?.array?.allSatisfy { $0["device"]?.string == id } == true)
                let track = try await h.call(.GET, "/v1/devices/\(Self.encoded(id))/track", key: key)
                #expect(track["device"]?.string == id && track["fixes"]?.array?.count == 16, "\(id): \(track)")
            }
            // The CSV: every text cell quoted with its quotes doubled, formulas defused.
            let csv = try await h.call(.GET, "/v1/events/history?format=csv&kind=enter&limit=1000", key: key)
            let rows = csv.text.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }
            #expect(rows.count == ids.count)
            let deviceCells = Set(rows.map { $0.components(separatedBy: ",\"yard\",")[0] })
            for (id, cell) in [
                ("=1+1", #""'=1+1""#), ("@SUM(A1)", #""'@SUM(A1)""#), ("-2", #""'-2""#), ("+3", #""'+3""#),
                (#""q""#, #""""q""""#), ("x,y", #""x,y""#),
            ] {
                #expect(deviceCells.contains { $0.hasSuffix(",\(cell)") }, "\(id): \(deviceCells)")
            }
            // The GeoJSON: a FeatureCollection of points at the fixes, ids as properties.
            let geo = try await h.call(.GET, "/v1/events/history?format=geojson&limit=1000", key: key)
            let features = geo["features"]?.array ?? []
            #expect(features.count == 2 * ids.count)
            for f in features {
                let c: [Double] = f["geometry"]?["coordinates"]?.array?.compactMap { (n: ServerJSON) in n.number } ?? []
                #expect(f["type"]?.string == "Feature" && c.count == 2)
                #expect(c.first.map { (121...121.02).contains($0) } == true && c.last == 31, "\(c)")
                let device: String = f["properties"]?["device"]?.string ?? ""
                #expect(f["properties"]?["latitude"] == nil && ids.contains(device))
            }
            // Another tenant sees none of it, even naming the ids.
            let other = try await h.key("other")
            #expect(try await h.call(.GET, "/v1/devices?prefix=%3D", key: other)["devices"] == .array([]))
            let stolen = try await h.call(.GET, "/v1/events/history?device=\(Self.encoded("=1+1"))", key: other)
            #expect(stolen["events"] == .array([]))
            #expect(try await h.call(.GET, "/v1/devices/%F0%9F%9A%9A/track", key: other)["fixes"] == .array([]))
            #expect(try await h.call(.GET, "/v1/regions/yard/figures", key: other).status == 404)
        }
    }

    // MARK: Keys

    @Test("an ingest key, even bound to its device, reads nothing; a read key reads its own tenant only")
    func keysReadOnlyWhatTheyMay() async throws {
        try await Harness.run(.sqlite) { h in
            let admin = try await h.key("acme")
            try await DashboardReadTests.importRegions(
                h, key: admin, [circleFeature("yard", lat: 31, lon: 121, radius: 300)])
            let t0 = h.clock.date.timeIntervalSince1970 - 3_600
            _ = try await DashboardReadTests.visit(h, key: admin, device: "van-1", start: t0, inside: 6, after: 6)
            let phone = try await h.server.createAPIKey(tenant: "acme", scope: .ingest(devices: .device("van-1")))
            let fleet = try await h.server.createAPIKey(tenant: "acme", scope: .ingest(devices: .prefix("van-")))
            let reads = [
                "/v1/devices", "/v1/devices?prefix=van-", "/v1/devices?inside=yard", "/v1/events/history",
                "/v1/events/history?device=van-1&format=csv", "/v1/devices/van-1/track", "/v1/regions/search",
                "/v1/regions/map?bbox=-180,-90,180,90&zoom=0", "/v1/regions?bbox=-180,-90,180,90",
                "/v1/regions/yard/figures",
            ]
            for path in reads {
                for key in [phone, fleet] {
                    let r = try await h.call(.GET, path, key: key)
                    #expect(r.status == 403 && !r.text.contains("van-1\","), "\(path): \(r)")
                }
            }
            let otherReader = try await h.server.createAPIKey(tenant: "other", scope: .read)
            for path in reads.dropLast() {
                let r = try await h.call(.GET, path, key: otherReader)
                // 404 for `inside=yard`: the other tenant has no such region.
                #expect([200, 404].contains(r.status), "\(path): \(r)")
                if path.hasSuffix("/track") {
                    #expect(r["fixes"] == .array([]), "the path's id is echoed, none of its fixes: \(r)")
                } else {
                    #expect(!r.text.contains("van-1"), "\(path): \(r)")
                }
            }
            #expect(try await h.call(.GET, "/v1/regions/yard/figures", key: otherReader).status == 404)
            let reader = try await h.server.createAPIKey(tenant: "acme", scope: .read)
            #expect(try await h.call(.GET, "/v1/events/history", key: reader)["events"]?.array?.count == 2)
            // Scopes a read key cannot have are refused when stored, not widened.
            #expect(KeyScope(stored: "read:device:van-1") == nil && KeyScope(stored: "read:prefix:van-") == nil)
        }
    }

    // MARK: Battery

    @Test(
        "absurd battery levels are never kept, and a report older than the kept level never replaces it",
        arguments: StoreKind.allCases)
    func batteryAbsurdAndLate(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            let now = h.clock.date.timeIntervalSince1970
            let t = Int(now) - 600
            let headers = [TrackingAppIngestTests.basic("al", key), ("X-Limit-U", "al"), ("X-Limit-D", "ph")]
            func owntracks(_ tst: Int, _ batt: String) async throws -> Reply {
                try await TrackingAppIngestTests.send(
                    h, .POST, "/v1/ingest/owntracks",
                    body: #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(tst),"batt":\#(batt)}"#, headers: headers
                )
            }
            func battery(_ device: String) async throws -> ServerJSON? {
                try await BatteryTests.battery(of: device, h, key: key)
            }
            #expect(try await owntracks(t, "80").status == 200)
            for (i, bad) in [#""50""#, "true", "[50]", "{}"].enumerated() {
                let r = try await owntracks(t + 1 + i, bad)
                #expect(r.status == 400 && r["field"]?.string == "batt", "\(bad): \(r)")
            }
            for (i, ignored) in ["101", "-1", "1e308", "-0.0001", "100.0000001"].enumerated() {
                #expect(try await owntracks(t + 10 + i, ignored).status == 200, "\(ignored)")
            }
            let huge = try await owntracks(t + 20, "1e309")
            #expect(huge.status == 200 || (huge.status == 400 && huge["field"] != nil), "\(huge)")
            #expect(try await battery("al/ph")?["percent"]?.number == 80)
            // A delayed report, older than the kept level, is acknowledged and does not replace it.
            #expect(try await owntracks(t + 100, "60").status == 200)
            #expect(try await owntracks(t + 50, "20").status == 200)
            var b = try await battery("al/ph")
            #expect(b?["percent"]?.number == 60, "\(String(describing: b))")
            #expect(b?["time"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(t + 100))))

            // OsmAnd form: a heartbeat whose clock runs a year ahead is kept at the server's time,
            // so a correct later report still replaces it.
            func osmand(_ query: String) async throws -> Reply {
                try await TrackingAppIngestTests.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=v&\(query)")
            }
            #expect(try await osmand("lat=52.5&lon=13.4&timestamp=\(t)").status == 200)
            for bad in ["batt=nan", "batt=inf", "batt=1e309", "battery=0x10", "batt=true", "batt=%2050"] {
                let r = try await osmand("lat=52.5&lon=13.4&timestamp=\(t)&\(bad)")
                #expect(r.status == 400 && r["field"]?.string == bad.split(separator: "=")[0].description, "\(r)")
            }
            #expect(try await osmand("timestamp=\(Int(now) + 365 * 86_400)&batt=70").status == 200)
            b = try await battery("v")
            #expect(b?["percent"]?.number == 70 && b?["time"]?.string == FixJSON.formatRFC3339(h.clock.date))
            h.clock.advance(60)
            #expect(try await osmand("timestamp=\(Int(now) + 30)&batt=69").status == 200)
            #expect(try await battery("v")?["percent"]?.number == 69)

            // Traccar Client's JSON array out of order: the newest location's level is kept.
            func at(_ s: Int) -> String { FixJSON.formatRFC3339(Date(timeIntervalSince1970: Double(s))) }
            let json = """
                {"device_id":"w","location":[
                  {"timestamp":"\(at(t + 300))","coords":{"latitude":52.5,"longitude":13.4},"battery":{"level":0.3}},
                  {"timestamp":"\(at(t + 200))","coords":{"latitude":52.5,"longitude":13.4},"battery":{"level":0.9}},
                  {"timestamp":"\(at(t + 400))","coords":{"latitude":52.5,"longitude":13.4},"battery":{"level":2}}]}
                """
            let traccar = try await TrackingAppIngestTests.send(h, .POST, "/v1/ingest/osmand?key=\(key)", body: json)
            #expect(traccar.status == 200, "\(traccar)")
            #expect(try await battery("w")?["percent"]?.number == 30)
        }
    }
}
