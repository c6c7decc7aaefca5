import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import RegionPlanner
import Testing

/// Two provinces side by side (west: lon 120–121, east: 121–122, lat 30–31), each with
/// cities (circles of 2 km) well inside, and one district inside a western city; plus a few
/// top-tier shops along the border.
enum PlanFixture {
    static func square(_ id: String, lon0: Double, lon1: Double, extra: String = "") -> String {
        #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[\#(lon0),30],[\#(lon1),30],[\#(lon1),31],[\#(lon0),31],[\#(lon0),30]]]},"properties":{"id":"\#(id)"\#(extra)}}"#
    }

    static var features: [String] {
        [
            square("west", lon0: 120, lon1: 121, extra: #","source":"gov""#),
            square("east", lon0: 121, lon1: 122, extra: #","source":"gov""#),
            circleFeature(
                "west-city-1", lat: 30.5, lon: 120.5, radius: 2_000, extra: #","parent":"west","source":"gov""#),
            circleFeature("west-city-2", lat: 30.5, lon: 120.8, radius: 2_000, extra: #","parent":"west""#),
            circleFeature(
                "east-city-1", lat: 30.5, lon: 121.2, radius: 2_000,
                extra: #","parent":"east","initialTrigger":["enter"]"#),
            circleFeature("east-city-2", lat: 30.5, lon: 121.5, radius: 2_000, extra: #","parent":"east""#),
            circleFeature("west-district", lat: 30.5, lon: 120.5, radius: 300, extra: #","parent":"west-city-1""#),
            circleFeature("shop-1", lat: 30.6, lon: 121.0, radius: 100, extra: #","source":"acme""#),
            circleFeature("shop-2", lat: 30.4, lon: 121.0, radius: 100, extra: #","source":"acme","dwell":120"#),
        ]
    }

    static var collection: String { #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"# }

    static func ids(_ reply: Reply) -> [String] { reply["regions"]?.array?.compactMap { $0["id"]?.string } ?? [] }
}

@Suite("Device plans")
struct DevicePlanTests {
    @Test(
        "a plan holds the top tier and the children of the parents the device is inside, nearest first",
        arguments: StoreKind.allCases)
    func tiers(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: PlanFixture.collection).status == 200)
            // In the west province, far from its cities' centre: the west cities, not the east ones.
            let west = try await h.call(.GET, "/v1/devices/p/plan?lat=30.5&lon=120.65", key: key)
            #expect(west.status == 200, "\(west)")
            #expect(Set(PlanFixture.ids(west)) == ["west", "east", "west-city-1", "west-city-2", "shop-1", "shop-2"])
            #expect(PlanFixture.ids(west).first == "west") // inside: distance 0
            let distances = west["regions"]?.array?.compactMap { $0["distanceMeters"]?.number } ?? []
            #expect(distances == distances.sorted())
            #expect(west["regions"]?.array?.first { $0["id"]?.string == "west" }?["hasChildren"] == .bool(true))
            #expect(west["regions"]?.array?.first { $0["id"]?.string == "shop-1" }?["hasChildren"] == .bool(false))
            #expect(west["monitoringEnabled"] == .bool(true))
            #expect(west["maxAgeSeconds"]?.number == 900)
            #expect((west["replanRadiusMeters"]?.number ?? 0) > 0)
            // Inside west-city-1: its district joins.
            let city = try await h.call(.GET, "/v1/devices/p/plan?lat=30.5&lon=120.51", key: key)
            #expect(PlanFixture.ids(city).contains("west-district"))
            // In the east province: the east cities with their trigger strategy.
            let east = try await h.call(.GET, "/v1/devices/p/plan?lat=30.5&lon=121.35", key: key)
            #expect(Set(PlanFixture.ids(east)) == ["west", "east", "east-city-1", "east-city-2", "shop-1", "shop-2"])
            let eastCity = east["regions"]?.array?.first { $0["id"]?.string == "east-city-1" }
            #expect(eastCity?["properties"]?["initialTrigger"] == .array([.string("enter")]))
            #expect(eastCity?["properties"]?["parent"]?.string == "east")
        }
    }

    /// 30 shops of 100 m in a row eastwards on the equator, 5 km apart, the first 10 km from (0, 0).
    func importShopRow(_ h: Harness, key: String) async throws {
        let shops = (0..<30).map { i in circleFeature("s\(i)", lat: 0, lon: 0.09 + Double(i) * 0.045, radius: 100) }
        let body = #"{"type":"FeatureCollection","features":[\#(shops.joined(separator: ","))]}"#
        #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: body).status == 200)
    }

    @Test(
        "a plan fills slots − 1 regions and sizes the re-plan circle by the nearest one left out",
        arguments: StoreKind.allCases)
    func slotsAndRadius(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            try await importShopRow(h, key: key)
            let p = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0&slots=5", key: key)
            #expect(PlanFixture.ids(p) == ["s0", "s1", "s2", "s3"])
            // The 5th shop's boundary is 0.27° of longitude (30,056 m on the equator) − 100 m
            // away; the circle leaves the travel and clearance allowances (1,170 + 510 + 1 m)
            // and the 220 m exit margin (20 m + 2 × the ±100 m the sizing assumes): 28,055 m.
            let radius = try #require(p["replanRadiusMeters"]?.number)
            #expect(abs(radius - 28_055) <= 1, "\(radius)")
            #expect(p["guaranteed"] == .bool(true))
            // 20 slots: only 18 shops lie within the 100 km search radius, which then bounds
            // every region not seen (100,000 − 1,170 − 510 − 1 − 220 m).
            let twenty = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0", key: key)
            #expect(PlanFixture.ids(twenty).count == 18)
            #expect(twenty["replanRadiusMeters"]?.number == 98_099)
            // Crowded: the nearest left out is too close for any radius.
            let crowded = (0..<5).map { i in circleFeature("c\(i)", lat: 0.001 * Double(i), lon: 0.0, radius: 50) }
            _ = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(crowded.joined(separator: ","))]}"#)
            let dense = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0&slots=3", key: key)
            #expect(dense["guaranteed"] == .bool(false))
            #expect(dense["replanRadiusMeters"]?.number == 511, "the smallest circle a first fix decides")
        }
    }

    @Test("a phone's event latency shrinks the circle by the travel in that time; past what is left, no guarantee")
    func eventLatency() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            try await importShopRow(h, key: key)
            func radius(_ query: String) async throws -> (Double?, ServerJSON?) {
                let p = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0&slots=5\(query)", key: key)
                #expect(PlanFixture.ids(p) == ["s0", "s1", "s2", "s3"])
                return (p["replanRadiusMeters"]?.number, p["guaranteed"])
            }
            #expect(try await radius("").0 == 28_055)
            #expect(try await radius("&eventLatency=0").0 == 28_055)
            // Core Location's 300 s at the assumed 40 m/s: 12,000 m more travel before the exit arrives.
            let coreLocation = try await radius("&eventLatency=300")
            #expect(coreLocation.0 == 16_055 && coreLocation.1 == .bool(true))
            // 900 s: 36,000 m, more than the 30 km to the fifth shop.
            let slept = try await radius("&eventLatency=900")
            #expect(slept.0 == 511 && slept.1 == .bool(false))
        }
    }

    @Test("the configuration file's planAssumptions size the circle; bad values name their key")
    func assumptionsFromConfigFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"planAssumptions":{"maximumSpeedMetersPerSecond":20}}"#.utf8).write(to: file)
        var config = ServerConfiguration()
        try config.apply(configFile: file.path)
        var slower = PlanAssumptions()
        slower.maximumSpeed = 20
        #expect(config.planSizing == slower.sizing)
        #expect(ServerConfiguration().planSizing == PlanAssumptions().sizing)
        try await Harness.run(.sqlite, configure: { $0.planSizing = config.planSizing }) { h in
            let key = try await h.key("acme")
            let shops = (0..<18).map { i in circleFeature("s\(i)", lat: 0, lon: 0.09 + Double(i) * 0.045, radius: 100) }
            _ = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(shops.joined(separator: ","))]}"#)
            // At 20 m/s: travel 20 × 23 + 250 = 710 m, clearance 220 + 20 + 250 = 490 m, so the
            // 100 km search bound leaves 100,000 − 710 − 490 − 1 − 220 m (98,099 m at 40 m/s).
            let plan = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0", key: key)
            #expect(plan["replanRadiusMeters"]?.number == 98_579, "\(plan)")
        }
        // An accuracy beyond Core Location's ±1 km limit would be clamped to it: refused instead.
        let bads = [
            #"{"maximumSpeedMetersPerSecond":0}"#, #"{"maximumAccuracyMeters":"far"}"#,
            #"{"maximumAccuracyMeters":5000}"#, #"{"glitchAllowanceMeters":-1}"#, "[]",
        ]
        for bad in bads {
            try Data(#"{"planAssumptions":\#(bad)}"#.utf8).write(to: file)
            var c = ServerConfiguration()
            #expect { try c.apply(configFile: file.path) } throws: {
                ($0 as? ConfigurationError)?.key.hasPrefix("planAssumptions") == true
            }
        }
    }

    @Test("unchanged plans are 304s; a region change or the switch gives a new ETag", arguments: StoreKind.allCases)
    func caching(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            _ = try await h.call(.POST, "/v1/regions/import", key: key, body: PlanFixture.collection)
            let path = "/v1/devices/p/plan?lat=30.5&lon=120.65"
            let first = try await h.call(.GET, path, key: key)
            let etag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "private, max-age=900")
            let again = try await h.call(.GET, path, key: key, headers: [("If-None-Match", etag)])
            #expect(again.status == 304 && again.text.isEmpty)
            #expect(again.header("ETag") == etag)
            #expect(
                try await h.call(.GET, path, key: key, headers: [("If-None-Match", "\"other\", W/\(etag)")]).status
                    == 304)
            #expect(try await h.call(.GET, path, key: key, headers: [("If-None-Match", "\"other\"")]).status == 200)
            #expect(try await h.call(.GET, path, key: key, headers: [("If-None-Match", "*")]).status == 304)
            // A region far away and not in the plan: same plan, same ETag.
            _ = try await h.call(
                .PUT, "/v1/regions/far", key: key, body: circleFeature("far", lat: -40, lon: 10, radius: 100))
            #expect(try await h.call(.GET, path, key: key, headers: [("If-None-Match", etag)]).status == 304)
            // A region of the plan changes its trigger strategy: a new plan.
            _ = try await h.call(
                .PUT, "/v1/regions/shop-1", key: key,
                body: circleFeature("shop-1", lat: 30.6, lon: 121.0, radius: 100, extra: #","notifyOnExit":false"#))
            let changed = try await h.call(.GET, path, key: key, headers: [("If-None-Match", etag)])
            #expect(changed.status == 200)
            let etag2 = try #require(changed.header("ETag"))
            #expect(etag2 != etag)
            // The switch: off for the tenant, a new ETag and an empty plan.
            #expect(
                try await h.call(
                    .PUT, "/v1/settings", key: key, body: #"{"monitoringEnabled":false,"planMaxAgeSeconds":60}"#
                ).status == 200)
            let off = try await h.call(.GET, path, key: key, headers: [("If-None-Match", etag2)])
            #expect(off.status == 200 && off["monitoringEnabled"] == .bool(false))
            #expect(PlanFixture.ids(off).isEmpty && off["replanRadiusMeters"] == .null)
            #expect(off.header("Cache-Control") == "private, max-age=60")
            // One device switched back on.
            _ = try await h.call(.PUT, "/v1/devices/p/settings", key: key, body: #"{"monitoringEnabled":true}"#)
            let on = try await h.call(.GET, path, key: key)
            #expect(on["monitoringEnabled"] == .bool(true) && !PlanFixture.ids(on).isEmpty)
            #expect(
                try await h.call(.GET, "/v1/devices/q/plan?lat=30.5&lon=120.65", key: key)["monitoringEnabled"]
                    == .bool(false))
        }
    }

    @Test("a missing parent makes a region top-tier; a cycle of parents or a chain deeper than 16 is never active")
    func oddHierarchies() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            var features = [
                circleFeature("orphan", lat: 0, lon: 0.01, radius: 100, extra: #","parent":"gone""#),
                circleFeature("a", lat: 0, lon: 0, radius: 5_000, extra: #","parent":"b""#),
                circleFeature("b", lat: 0, lon: 0, radius: 5_000, extra: #","parent":"a""#),
                circleFeature("level-0", lat: 0, lon: 0, radius: 9_000),
            ]
            // level-1 … level-20, each inside its parent: the device is inside all of them.
            for i in 1...20 {
                features.append(
                    circleFeature(
                        "level-\(i)", lat: 0, lon: 0, radius: 9_000 - Double(i) * 100,
                        extra: #","parent":"level-\#(i - 1)""#))
            }
            let body = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: body).status == 200)
            let p = try await h.call(.GET, "/v1/devices/d/plan?lat=0&lon=0&slots=100", key: key)
            let ids = Set(PlanFixture.ids(p))
            #expect(ids.contains("orphan") && !ids.contains("a") && !ids.contains("b"))
            #expect(ids.contains("level-0") && ids.contains("level-16") && !ids.contains("level-17"))
        }
    }

    @Test("bad plan queries are 400 problems naming the parameter")
    func badQueries() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            let cases: [(String, String)] = [
                ("lon=1", "lat"), ("lat=1", "lon"), ("lat=91&lon=0", "lat"), ("lat=0&lon=nan", "lon"),
                ("lat=0&lon=1e400", "lon"), ("lat=0&lon=0&slots=1", "slots"), ("lat=0&lon=0&slots=101", "slots"),
                ("lat=0&lon=0&slots=020", "slots"), ("lat=0&lon=0&slots=1e2", "slots"),
                ("lat=0&lon=0&fixInterval=0.5", "fixInterval"), ("lat=0&lon=0&fixInterval=3601", "fixInterval"),
                ("lat=0&lon=0&fixInterval=inf", "fixInterval"), ("lat=0&lon=0&fixInterval=", "fixInterval"),
                ("lat=0&lon=0&eventLatency=-1", "eventLatency"), ("lat=0&lon=0&eventLatency=901", "eventLatency"),
                ("lat=0&lon=0&eventLatency=nan", "eventLatency"), ("lat=0&lon=0&eventLatency=", "eventLatency"),
            ]
            for (query, field) in cases {
                let r = try await h.call(.GET, "/v1/devices/p/plan?\(query)", key: key)
                #expect(r.status == 400 && r["field"]?.string == field, "\(query): \(r)")
            }
            #expect(try await h.call(.GET, "/v1/devices/%01/plan?lat=0&lon=0", key: key).status == 400)
            // The edges of the map are plans like any other.
            _ = try await h.call(
                .PUT, "/v1/regions/pole", key: key, body: circleFeature("pole", lat: 89.99, lon: 0, radius: 5_000))
            _ = try await h.call(
                .PUT, "/v1/regions/dateline", key: key,
                body: circleFeature("dateline", lat: 0, lon: 179.99, radius: 5_000))
            for (lat, lon, id) in [
                (90.0, 0.0, "pole"), (-90.0, 180.0, ""), (0.0, -180.0, "dateline"), (0.0, 180.0, "dateline"),
                (-0.0, 179.999, "dateline"),
            ] {
                let r = try await h.call(.GET, "/v1/devices/p/plan?lat=\(lat)&lon=\(lon)", key: key)
                #expect(r.status == 200, "\(lat), \(lon): \(r)")
                if !id.isEmpty { #expect(PlanFixture.ids(r).contains(id), "\(lat), \(lon): \(r)") }
            }
            #expect(try await h.call(.GET, "/v1/devices/p/plan?lat=0&lon=0", key: nil).status == 401)
            #expect(try await h.call(.POST, "/v1/devices/p/plan?lat=0&lon=0", key: key).status == 405)
        }
    }
}

@Suite("Plan settings")
struct PlanSettingsTests {
    @Test("tenant and device settings are stored, inherited and survive a restart", arguments: StoreKind.allCases)
    func roundTrip(_ store: StoreKind) async throws {
        try await TestDatabase.with(store) { db in
            try await Harness.run(database: db.location) { h in
                let key = try await h.key("acme")
                let defaults = try await h.call(.GET, "/v1/settings", key: key)
                #expect(defaults["monitoringEnabled"] == .bool(true) && defaults["planMaxAgeSeconds"]?.number == 900)
                let put = try await h.call(.PUT, "/v1/settings", key: key, body: #"{"planMaxAgeSeconds":120}"#)
                #expect(
                    put.status == 200 && put["planMaxAgeSeconds"]?.number == 120
                        && put["monitoringEnabled"] == .bool(true))
                let d = try await h.call(
                    .PUT, "/v1/devices/phone-1/settings", key: key, body: #"{"monitoringEnabled":false}"#)
                #expect(d.status == 200, "\(d)")
                #expect(d["monitoringEnabled"] == .bool(false) && d["planMaxAgeSeconds"] == .null)
                #expect(d["effective"]?["planMaxAgeSeconds"]?.number == 120)
                // Another tenant sees none of it.
                let other = try await h.key("globex")
                #expect(try await h.call(.GET, "/v1/settings", key: other)["planMaxAgeSeconds"]?.number == 900)
                #expect(
                    try await h.call(.GET, "/v1/devices/phone-1/settings", key: other)["effective"]?[
                        "monitoringEnabled"] == .bool(true))
            }
            try await Harness.run(database: db.location) { h in
                let key = try await h.key("acme")
                #expect(try await h.call(.GET, "/v1/settings", key: key)["planMaxAgeSeconds"]?.number == 120)
                let d = try await h.call(.GET, "/v1/devices/phone-1/settings", key: key)
                #expect(
                    d["effective"] == .object(["monitoringEnabled": .bool(false), "planMaxAgeSeconds": .number(120)]))
                // PUT replaces: an empty document inherits everything again.
                _ = try await h.call(.PUT, "/v1/devices/phone-1/settings", key: key, body: "{}")
                #expect(
                    try await h.call(.GET, "/v1/devices/phone-1/settings", key: key)["effective"]?["monitoringEnabled"]
                        == .bool(true))
            }
        }
    }

    @Test("bad settings are 400 problems naming the field and change nothing")
    func badSettings() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            _ = try await h.call(.PUT, "/v1/settings", key: key, body: #"{"planMaxAgeSeconds":60}"#)
            let cases: [(String, String)] = [
                (#"{"monitoringEnabled":"no"}"#, "monitoringEnabled"),
                (#"{"monitoringEnabled":0}"#, "monitoringEnabled"),
                (#"{"planMaxAgeSeconds":-1}"#, "planMaxAgeSeconds"),
                (#"{"planMaxAgeSeconds":1.5}"#, "planMaxAgeSeconds"),
                (#"{"planMaxAgeSeconds":86401}"#, "planMaxAgeSeconds"),
                (#"{"planMaxAgeSeconds":1e20}"#, "planMaxAgeSeconds"),
                (#"{"planMaxAge":60}"#, "planMaxAge"), ("[]", "body"), ("true", "body"),
            ]
            for (body, field) in cases {
                for path in ["/v1/settings", "/v1/devices/x/settings"] {
                    let r = try await h.call(.PUT, path, key: key, body: body)
                    #expect(r.status == 400 && r["field"]?.string == field, "\(path) \(body): \(r)")
                }
            }
            #expect(try await h.call(.GET, "/v1/settings", key: key)["planMaxAgeSeconds"]?.number == 60)
            #expect(try await h.call(.GET, "/v1/devices/x/settings", key: key)["planMaxAgeSeconds"] == .null)
        }
    }
}

@Suite("Device plans choose what RegionPlanner chooses")
struct PlanEquivalenceTests {
    @Test(
        "for 400 random circles and 60 random points, the server's plan is RegionPlanner's nearest slots − 1 and its radius"
    )
    func sameAsThePlanner() async throws {
        var rng = SplitMix(seed: 22)
        var circles: [(id: String, lat: Double, lon: Double, radius: Double)] = []
        for i in 0..<400 {
            circles.append(
                ("r\(i)", 47 + rng.next(in: 0...1) * 0.6, 8 + rng.next(in: 0...1) * 0.9, 50 + rng.next(in: 0...1) * 400)
            )
        }
        let catalogue = try Catalogue(
            circles.map {
                CatalogueEntry(
                    region: .circle(
                        identifier: $0.id, center: Coordinate(uncheckedLatitude: $0.lat, longitude: $0.lon),
                        radius: $0.radius))
            })
        let sizing = ServerConfiguration().planSizing
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            let body =
                #"{"type":"FeatureCollection","features":[\#(circles.map { circleFeature($0.id, lat: $0.lat, lon: $0.lon, radius: $0.radius) }.joined(separator: ","))]}"#
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: body).status == 200)
            var compared = 0
            while compared < 60 {
                let point = Coordinate(
                    uncheckedLatitude: 47 + rng.next(in: 0...1) * 0.6, longitude: 8 + rng.next(in: 0...1) * 0.9)
                let slots = 2 + Int(rng.next(in: 0...1) * 30)
                let near = catalogue.nearest(slots, to: point)
                guard near.allSatisfy({ $0.distance > 0 }) else { continue } // inside ranks differently (0 vs depth)
                let (keep, other) = SlotFill.fill(
                    slots - 1, keeping: [], from: near, id: \.entry.identifier, distance: \.distance)
                let plan = try await h.call(
                    .GET, "/v1/devices/d/plan?lat=\(point.latitude)&lon=\(point.longitude)&slots=\(slots)", key: key)
                #expect(Set(PlanFixture.ids(plan)) == keep, "at \(point), \(slots) slots")
                let expected =
                    sizing.radius(nearestUnregistered: other).map { $0.rounded(.down) }
                    ?? sizing.minimumRadius.rounded(.down)
                #expect(plan["replanRadiusMeters"]?.number == expected, "at \(point), \(slots) slots")
                compared += 1
            }
        }
    }
}
