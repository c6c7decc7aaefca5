import Foundation
import GeofenceServer
import Testing

@Suite("Dashboard files and the bbox filter")
struct DashboardTests {
    // MARK: Static files

    @Test("the page is served at / without a key, as HTML, with a strict policy and a validator")
    func page() async throws {
        try await Harness.run { h in
            let page = try await h.call(.GET, "/", key: nil)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.hasPrefix("default-src 'self'; script-src 'self'; style-src 'self';"))
            #expect(!policy.contains("unsafe"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Cache-Control") == "no-cache")
            let tag = try #require(page.header("ETag"))
            let again = try await h.call(.GET, "/", key: nil, headers: [("If-None-Match", tag)])
            #expect(again.status == 304 && again.text.isEmpty)
            #expect(try await h.call(.GET, "/", key: nil, headers: [("If-None-Match", "\"other\"")]).status == 200)
        }
    }

    @Test("every file the page names is served with its media type; the page has no inline script or style")
    func files() async throws {
        try await Harness.run { h in
            let page = try await h.call(.GET, "/", key: nil).text
            #expect(!page.contains("<script>") && !page.contains("style=") && !page.contains("<style"))
            let named = page.matches(of: /(?:src|href)="(\/dashboard\/[^"]+)"/).map { String($0.output.1) }
            // The page, its style and script, and app.js's modules (preloaded beside it).
            let modules = [
                "api.js", "map.js", "geo.js", "edit.js", "dom.js", "panels.js", "replay.js", "tracks.js", "status.js",
            ]
            #expect(
                Set(named) == Set((["favicon.svg", "app.css", "app.js"] + modules).map { "/dashboard/\($0)" }))
            let expected = [
                "app.css": "text/css; charset=utf-8", "app.js": "text/javascript; charset=utf-8",
                "map.js": "text/javascript; charset=utf-8", "api.js": "text/javascript; charset=utf-8",
                "geo.js": "text/javascript; charset=utf-8", "edit.js": "text/javascript; charset=utf-8",
                "dom.js": "text/javascript; charset=utf-8", "panels.js": "text/javascript; charset=utf-8",
                "replay.js": "text/javascript; charset=utf-8", "tracks.js": "text/javascript; charset=utf-8",
                "status.js": "text/javascript; charset=utf-8",
                "favicon.svg": "image/svg+xml", "config.json": "application/json",
            ]
            for (file, type) in expected {
                let r = try await h.call(.GET, "/dashboard/\(file)", key: nil)
                #expect(r.status == 200, "\(file): \(r)")
                #expect(r.header("Content-Type") == type, "\(file)")
                #expect(r.header("Content-Security-Policy") != nil, "\(file)")
            }
            // The modules import only each other, by relative path.
            for module in expected.keys where module.hasSuffix(".js") {
                let text = try await h.call(.GET, "/dashboard/\(module)", key: nil).text
                for m in text.matches(of: /from '\.\/([a-z]+\.js)'/) { #expect(expected[String(m.output.1)] != nil) }
            }
        }
    }

    @Test("unknown or escaping file names are 404 problems")
    func unknownFiles() async throws {
        try await Harness.run { h in
            for path in [
                "/dashboard/nope.js", "/dashboard/..%2F..%2FPackage.swift", "/dashboard/%2e%2e",
                "/dashboard/index.html.bak",
            ] {
                let r = try await h.call(.GET, path, key: nil)
                #expect(r.status == 404, "\(path): \(r)")
                #expect(r.header("Content-Type") == "application/problem+json", "\(path)")
            }
        }
    }

    @Test("config.json carries the tile template, and the policy lets images come from its origin only")
    func tiles() async throws {
        try await Harness.run(configure: { $0.dashboardTileURL = "https://tiles.example.org:8443/osm/{z}/{x}/{y}.png" })
        { h in
            let config = try await h.call(.GET, "/dashboard/config.json", key: nil)
            #expect(config["tileURL"]?.string == "https://tiles.example.org:8443/osm/{z}/{x}/{y}.png")
            let policy = try #require(config.header("Content-Security-Policy"))
            #expect(policy.contains("img-src 'self' https://tiles.example.org:8443;"))
            #expect(policy.contains("connect-src 'self';"))
        }
        try await Harness.run { h in
            let config = try await h.call(.GET, "/dashboard/config.json", key: nil)
            #expect(config["tileURL"] == .null)
        }
    }

    @Test("a tile template without {z}, {x} and {y}, or not http(s), is a configuration error")
    func badTileTemplate() {
        for bad in ["https://tiles.example.org/{z}/{x}.png", "ftp://t/{z}/{x}/{y}", "{z}/{x}/{y}"] {
            var c = ServerConfiguration()
            c.dashboardTileURL = bad
            #expect(throws: ConfigurationError.self, "\(bad)") { try c.validate() }
        }
    }

    @Test("a configuration file sets the tile template and attribution, and refuses a bad template")
    func tileConfigFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.json")
        let bad = dir.appendingPathComponent("bad.json")
        try Data(
            #"{"dashboardTileURL":"https://t.example/{z}/{x}/{y}.png","dashboardTileAttribution":"© contributors"}"#
                .utf8
        ).write(to: good)
        try Data(#"{"dashboardTileURL":"https://t.example/{z}.png"}"#.utf8).write(to: bad)
        var c = ServerConfiguration()
        try c.apply(configFile: good.path)
        #expect(c.dashboardTileURL == "https://t.example/{z}/{x}/{y}.png")
        #expect(c.dashboardTileAttribution == "© contributors")
        var d = ServerConfiguration()
        #expect { try d.apply(configFile: bad.path) } throws: { ($0 as? ConfigurationError)?.key == "dashboardTileURL" }
    }

    // MARK: bbox

    /// Circles of 100 m: two in Shanghai, one in Paris; two of 200 m 0.001° (106 m) each side of
    /// the antimeridian (Fiji), each reaching across it; a polygon with a hole around Shanghai's centre.
    static func seed(_ h: Harness, key: String) async throws {
        let features = [
            circleFeature("sh-bund", lat: 31.2400, lon: 121.4900, radius: 100),
            circleFeature("sh-pudong", lat: 31.2350, lon: 121.5050, radius: 100),
            circleFeature("paris", lat: 48.8584, lon: 2.2945, radius: 100),
            circleFeature("fiji-east", lat: -17.0, lon: 179.999, radius: 200),
            circleFeature("fiji-west", lat: -17.0, lon: -179.999, radius: 200),
            #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[121.47,31.22],[121.52,31.22],[121.52,31.26],[121.47,31.26],[121.47,31.22]],[[121.48,31.23],[121.50,31.23],[121.50,31.25],[121.48,31.25],[121.48,31.23]]]},"properties":{"id":"sh-zone"}}"#,
        ]
        let r = try await h.call(
            .POST, "/v1/regions/import", key: key,
            body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        #expect(r.status == 200, "\(r)")
    }

    static func ids(_ r: Reply) -> [String] { r["regions"]?.array?.compactMap { $0["id"]?.string } ?? [] }

    @Test("bbox answers the regions whose box overlaps the view, by id, with how many match")
    func bbox() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            try await Self.seed(h, key: key)
            let shanghai = try await h.call(.GET, "/v1/regions?bbox=121.4,31.1,121.6,31.3", key: key)
            #expect(shanghai.status == 200, "\(shanghai)")
            #expect(Self.ids(shanghai) == ["sh-bund", "sh-pudong", "sh-zone"])
            #expect(shanghai["matched"]?.number == 3)
            #expect(shanghai["next"] == .null)
            // The features are the regions' canonical GeoJSON, as GET /v1/regions/{id} answers.
            #expect(shanghai["regions"]?.array?.first?["properties"]?["radius"]?.number == 100)

            // A box that only touches a circle's edge (100 m ≈ 0.00105° of longitude there) finds it.
            let edge = try await h.call(.GET, "/v1/regions?bbox=121.4909,31.2399,121.4911,31.2401", key: key)
            #expect(Self.ids(edge) == ["sh-bund", "sh-zone"])
            let beside = try await h.call(.GET, "/v1/regions?bbox=121.4915,31.2399,121.4920,31.2401", key: key)
            #expect(Self.ids(beside) == ["sh-zone"])
            // Paris alone; the empty Atlantic; the whole world.
            #expect(Self.ids(try await h.call(.GET, "/v1/regions?bbox=2,48,3,49", key: key)) == ["paris"])
            #expect(Self.ids(try await h.call(.GET, "/v1/regions?bbox=-40,0,-20,20", key: key)) == [])
            #expect(try await h.call(.GET, "/v1/regions?bbox=-180,-90,180,90", key: key)["matched"]?.number == 6)
        }
    }

    @Test("a bbox whose west edge is east of its east edge crosses the antimeridian")
    func antimeridian() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            try await Self.seed(h, key: key)
            #expect(
                Self.ids(try await h.call(.GET, "/v1/regions?bbox=179,-18,-179,-16", key: key)) == [
                    "fiji-east", "fiji-west",
                ])
            // Each circle crosses 180°, so a box on either side of it finds both.
            #expect(
                Self.ids(try await h.call(.GET, "/v1/regions?bbox=179.5,-18,180,-16", key: key)) == [
                    "fiji-east", "fiji-west",
                ])
            #expect(
                Self.ids(try await h.call(.GET, "/v1/regions?bbox=-180,-18,-179.5,-16", key: key)) == [
                    "fiji-east", "fiji-west",
                ])
            // A sliver just west of 180° still finds both; a box short of the circles finds neither.
            #expect(
                Self.ids(try await h.call(.GET, "/v1/regions?bbox=179.9995,-18,180,-16", key: key)) == [
                    "fiji-east", "fiji-west",
                ])
            #expect(Self.ids(try await h.call(.GET, "/v1/regions?bbox=179.0,-18,179.99,-16", key: key)) == [])
            #expect(Self.ids(try await h.call(.GET, "/v1/regions?bbox=170,-18,175,-16", key: key)) == [])
        }
    }

    @Test("bbox pages by id with limit and after; next is null on the last page")
    func bboxPaging() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            try await Self.seed(h, key: key)
            let p1 = try await h.call(.GET, "/v1/regions?bbox=-180,-90,180,90&limit=4", key: key)
            #expect(Self.ids(p1) == ["fiji-east", "fiji-west", "paris", "sh-bund"])
            #expect(p1["next"]?.string == "sh-bund")
            #expect(p1["matched"]?.number == 6)
            let p2 = try await h.call(.GET, "/v1/regions?bbox=-180,-90,180,90&limit=4&after=sh-bund", key: key)
            #expect(Self.ids(p2) == ["sh-pudong", "sh-zone"])
            #expect(p2["next"] == .null)
        }
    }

    @Test("paging a bbox by after gives every overlapping region once, in id order")
    func bboxPagesEverything() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            var rng = SystemRandomNumberGenerator()
            let ids = (0..<300).map { i in "z\(UInt32.random(in: 0...UInt32.max, using: &rng))-\(i)" }
            let inside = ids.enumerated().map {
                circleFeature($0.element, lat: 10 + Double($0.offset % 17) * 0.01, lon: 20, radius: 50)
            }
            let outside = (0..<50).map { circleFeature("out-\($0)", lat: -10, lon: 20, radius: 50) }
            let r = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#((inside + outside).joined(separator: ","))]}"#)
            #expect(r.status == 200, "\(r)")
            var seen: [String] = []
            var after: String? = nil
            for _ in 0..<100 {
                let q = after.map { "&after=\($0)" } ?? ""
                let page = try await h.call(.GET, "/v1/regions?bbox=19,9,21,11&limit=7\(q)", key: key)
                #expect(page["matched"]?.number == 300)
                seen += Self.ids(page)
                guard let next = page["next"]?.string else { break }
                after = next
            }
            #expect(seen == ids.sorted())
        }
    }

    @Test("bbox sees changes at once and only the caller's tenant")
    func bboxFollowsChanges() async throws {
        try await Harness.run { h in
            let acme = try await h.key("acme")
            let other = try await h.key("other")
            try await Self.seed(h, key: acme)
            let box = "/v1/regions?bbox=121.4,31.1,121.6,31.3"
            #expect(Self.ids(try await h.call(.GET, box, key: other)) == [])
            #expect(try await h.call(.DELETE, "/v1/regions/sh-bund", key: acme).status == 204)
            #expect(
                try await h.call(
                    .PUT, "/v1/regions/paris", key: acme,
                    body: circleFeature("paris", lat: 31.25, lon: 121.45, radius: 50)
                ).status == 200)
            #expect(Self.ids(try await h.call(.GET, box, key: acme)) == ["paris", "sh-pudong", "sh-zone"])
        }
    }

    @Test(
        "a malformed bbox is a 400 problem naming bbox",
        arguments: [
            "1,2,3", "1,2,3,4,5", "a,b,c,d", "0,95,1,96", "0,10,1,5", "nan,0,1,1", "inf,0,1,1", "1e400,0,1,1",
            "200,0,210,1", "0,-91,1,0", ",,,", String(repeating: "1", count: 300) + ",0,1,1",
        ])
    func badBBox(_ text: String) async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let q = text.addingPercentEncoding(
                withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ",.-")))!
            let r = try await h.call(.GET, "/v1/regions?bbox=\(q)", key: key)
            #expect(r.status == 400, "\(text): \(r)")
            #expect(r["field"]?.string == "bbox", "\(text)")
        }
    }
}
