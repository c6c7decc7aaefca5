import AsyncHTTPClient
import Foundation
import GeofenceServer
import NIOCore
import NIOHTTP1
import Testing

/// OwnTracks (HTTP mode) and the OsmAnd protocol (Traccar Client) end in the same ingestion
/// path as the JSON API: the same fixes give the same events; malformed requests get a 4xx
/// problem naming the protocol's field and change nothing.
@Suite("Tracking apps: OwnTracks and OsmAnd")
struct TrackingAppIngestTests {
    static let t0 = 1_800_000_000.0
    static let centre = (lat: 52.520_0, lon: 13.405_0)

    /// A walk from 600 m south of a 200 m circle, through its centre, to 600 m north: one fix
    /// every 10 s at 1.5 m/s, as (latitude, longitude, seconds after t0).
    static let walk: [(lat: Double, lon: Double, t: Double)] = (0...80).map { i in
        let northing = -600.0 + Double(i) * 15
        return (centre.lat + northing / 111_250, centre.lon, t0 + Double(i) * 10)
    }

    /// The events of `device`, as (kind, region, time) — what the protocols must agree on.
    static func events(of device: String, _ h: Harness, key: String) async throws -> [String] {
        let page = try await h.call(.GET, "/v1/events?limit=1000", key: key)
        return (page["events"]?.array ?? []).filter { $0["device"]?.string == device }.map {
            "\($0["event"]?.string ?? "?") \($0["region"]?.string ?? "?") \($0["time"]?.string ?? "?") \($0["crossedAt"]?.string ?? "?")"
        }
    }

    /// A tenant with the circle, and the events the JSON API gives for the walk.
    static func seedWithReference(_ h: Harness) async throws -> (key: String, reference: [String]) {
        let key = try await h.key("acme")
        let put = try await h.call(
            .PUT, "/v1/regions/plaza", key: key,
            body: circleFeature("plaza", lat: centre.lat, lon: centre.lon, radius: 200))
        #expect(put.status == 201, "\(put)")
        for p in walk {
            let r = try await h.call(
                .POST, "/v1/devices/reference/locations", key: key, body: fixJSON(p.lat, p.lon, t: p.t, accuracy: 8))
            #expect(r.status == 200, "\(r)")
        }
        let reference = try await events(of: "reference", h, key: key)
        #expect(reference.count == 2, "the walk enters and leaves the circle: \(reference)")
        return (key, reference)
    }

    static func send(
        _ h: Harness, _ method: HTTPMethod, _ path: String, body: String? = nil,
        contentType: String = "application/json", headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(h.port)\(path)")
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: body))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 1 << 20)
        return Reply(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            text: String(buffer: buffer))
    }

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    // MARK: OwnTracks

    @Test("OwnTracks location messages give the JSON API's events", arguments: StoreKind.allCases)
    func ownTracksEquivalence(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let (key, reference) = try await Self.seedWithReference(h)
            for p in Self.walk {
                // acc and vel present on some fixes only, as the apps send them.
                let extra = Int(p.t) % 20 == 0 ? #","acc":8,"vel":5,"cog":0"# : #","acc":8"#
                let body =
                    #"{"_type":"location","lat":\#(p.lat),"lon":\#(p.lon),"tst":\#(Int(p.t)),"tid":"al"\#(extra)}"#
                let r = try await Self.send(
                    h, .POST, "/v1/ingest/owntracks", body: body,
                    headers: [Self.basic("alice", key), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")])
                #expect(r.status == 200, "\(r)")
                #expect(r.json == .array([]), "the apps expect a JSON array")
            }
            #expect(
                try await Self.events(of: "alice/phone", h, key: key)
                    == reference.map { $0.replacingOccurrences(of: "reference", with: "alice/phone") })
        }
    }

    @Test("OwnTracks: the device is named by headers, query, topic or tracker id; speed is km/h")
    func ownTracksDeviceNames() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let fix = #""_type":"location","lat":52.5,"lon":13.4,"tst":1800000000"#
            let cases: [(path: String, body: String, headers: [(String, String)], device: String)] = [
                ("/v1/ingest/owntracks", "{\(fix)}", [("X-Limit-U", "bob"), ("X-Limit-D", "tablet")], "bob/tablet"),
                ("/v1/ingest/owntracks?u=carol&d=watch", "{\(fix)}", [], "carol/watch"),
                ("/v1/ingest/owntracks", #"{\#(fix),"topic":"owntracks/dave/car"}"#, [], "dave/car"),
                ("/v1/ingest/owntracks", #"{\#(fix),"tid":"ev"}"#, [], "erin/ev"),
            ]
            for c in cases {
                let r = try await Self.send(
                    h, .POST, c.path, body: c.body,
                    headers: [Self.basic(c.device == "erin/ev" ? "erin" : "x", key)] + c.headers)
                #expect(r.status == 200, "\(c.device): \(r)")
                let state = try await h.call(
                    .GET, "/v1/devices/\(c.device.replacingOccurrences(of: "/", with: "%2F"))/state", key: key)
                #expect(state["device"]?.string == c.device, "\(state)")
            }
            let withSpeed = #"{"_type":"location","lat":52.5,"lon":13.4,"tst":1800000010,"vel":36,"cog":90,"acc":12}"#
            let r = try await Self.send(
                h, .POST, "/v1/ingest/owntracks?u=frank&d=bike", body: withSpeed, headers: [Self.basic("frank", key)])
            #expect(r.status == 200, "\(r)")
            let bike = try await h.call(.GET, "/v1/devices/frank%2Fbike/state", key: key)
            #expect(bike["lastFix"]?["speed"]?.number == 10, "36 km/h is 10 m/s: \(bike)")
            #expect(bike["lastFix"]?["course"]?.number == 90)
            #expect(bike["lastFix"]?["horizontalAccuracy"]?.number == 12)
            let nameless = try await Self.send(
                h, .POST, "/v1/ingest/owntracks", body: "{\(fix)}", headers: [Self.basic("", key)])
            #expect(nameless.status == 400, "\(nameless)")
            #expect(nameless["field"]?.string == "X-Limit-D")
        }
    }

    @Test("OwnTracks: other message types and empty bodies are acknowledged and change nothing")
    func ownTracksOtherMessages() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            for body in [
                #"{"_type":"transition","event":"enter","tst":1800000000,"lat":1,"lon":2}"#,
                #"{"_type":"lwt","tst":1800000000}"#,
                #"{"_type":"waypoint","desc":"home","lat":1,"lon":2,"rad":50,"tst":1}"#, "",
            ] {
                let r = try await Self.send(
                    h, .POST, "/v1/ingest/owntracks?u=a&d=b", body: body.isEmpty ? nil : body,
                    headers: [Self.basic("a", key)])
                #expect(r.status == 200, "\(body): \(r)")
                #expect(r.json == .array([]))
            }
            #expect(try await h.call(.GET, "/v1/events", key: key)["events"]?.array?.isEmpty == true)
        }
    }

    @Test("OwnTracks: malformed messages get a problem naming OwnTracks' field")
    func ownTracksProblems() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let cases: [(body: String, status: Int, field: String)] = [
                (#"{"lat":52.5,"lon":13.4,"tst":1800000000}"#, 400, "_type"),
                (#"{"_type":"location","lon":13.4,"tst":1800000000}"#, 400, "lat"),
                (#"{"_type":"location","lat":"52.5","lon":13.4,"tst":1800000000}"#, 400, "lat"),
                (#"{"_type":"location","lat":95,"lon":13.4,"tst":1800000000}"#, 400, "lat"),
                (#"{"_type":"location","lat":52.5,"lon":13.4}"#, 400, "tst"),
                (#"{"_type":"location","lat":52.5,"lon":13.4,"tst":1800000000,"acc":-5}"#, 400, "acc"),
                (#"{"_type":"encrypted","data":"c2VjcmV0"}"#, 400, "_type"),
                (#"[{"_type":"location"}]"#, 400, "body"),
                // Location fields are checked whatever the message type.
                (#"{"_type":"transition","lat":52.5,"lon":13.4,"tst":1800000000,"cog":{}}"#, 400, "cog"),
            ]
            for c in cases {
                let r = try await Self.send(
                    h, .POST, "/v1/ingest/owntracks?u=a&d=b", body: c.body, headers: [Self.basic("a", key)])
                #expect(r.status == c.status, "\(c.body): \(r)")
                #expect(r["field"]?.string == c.field, "\(c.body): \(r)")
            }
            let wrongKey = try await Self.send(
                h, .POST, "/v1/ingest/owntracks?u=a&d=b", body: #"{"_type":"lwt"}"#,
                headers: [Self.basic("a", "not-a-key")])
            #expect(wrongKey.status == 401)
            #expect(try await h.call(.GET, "/v1/events", key: key)["events"]?.array?.isEmpty == true)
            #expect(try await h.call(.GET, "/v1/devices/b/state", key: key).status == 404, "no fix was accepted")
        }
    }

    // MARK: OsmAnd

    /// The walk's fix `p` as OsmAnd parameters, with the timestamp written by `time`.
    static func osmandQuery(_ p: (lat: Double, lon: Double, t: Double), id: String, time: (Double) -> String) -> String
    {
        "id=\(id)&lat=\(p.lat)&lon=\(p.lon)&timestamp=\(time(p.t))&accuracy=8&speed=2.9&bearing=0&altitude=34&batt=81"
    }

    @Test("OsmAnd GET, POST form and JSON give the JSON API's events", arguments: StoreKind.allCases)
    func osmandEquivalence(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let (key, reference) = try await Self.seedWithReference(h)
            for p in Self.walk {
                let get = try await Self.send(
                    h, .GET, "/v1/ingest/osmand?key=\(key)&" + Self.osmandQuery(p, id: "get-seconds") { "\(Int($0))" })
                #expect(get.status == 200, "\(get)")
                let millis = try await Self.send(
                    h, .GET, "/v1/ingest/osmand?" + Self.osmandQuery(p, id: "get-millis") { "\(Int($0) * 1_000)" },
                    headers: [("Authorization", "Bearer \(key)")])
                #expect(millis.status == 200, "\(millis)")
                let form = try await Self.send(
                    h, .POST, "/v1/ingest/osmand?key=\(key)",
                    body: Self.osmandQuery(p, id: "post-form") { Self.plainTime($0) },
                    contentType: "application/x-www-form-urlencoded")
                #expect(form.status == 200, "\(form)")
                let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: p.t))
                let json =
                    #"{"device_id":"post-json","location":{"timestamp":"\#(iso)","coords":{"latitude":\#(p.lat),"longitude":\#(p.lon),"accuracy":8,"speed":1.5,"heading":-1,"altitude":34},"is_moving":true,"battery":{"level":0.8,"is_charging":false}}}"#
                let posted = try await Self.send(h, .POST, "/v1/ingest/osmand?key=\(key)", body: json)
                #expect(posted.status == 200, "\(posted)")
            }
            for device in ["get-seconds", "get-millis", "post-form", "post-json"] {
                let events = try await Self.events(of: device, h, key: key)
                #expect(events == reference.map { $0.replacingOccurrences(of: "reference", with: device) }, "\(device)")
            }
        }
    }

    /// `yyyy-MM-dd HH:mm:ss` in UTC, percent-encoded for a form.
    static func plainTime(_ t: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'+'HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: t))
    }

    @Test("OsmAnd: knots, hdop, a missing accuracy and valid=false map as documented")
    func osmandFieldVariants() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let base = "/v1/ingest/osmand?key=\(key)&id=v&lat=52.5&lon=13.4"
            #expect(try await Self.send(h, .GET, base + "&timestamp=1800000000&speed=10&hdop=2").status == 200)
            var state = try await h.call(.GET, "/v1/devices/v/state", key: key)
            #expect(
                state["lastFix"]?["speed"]?.number.map { abs($0 - 5.144_444) < 1e-5 } == true,
                "10 kn = 5.144 m/s: \(state)")
            #expect(state["lastFix"]?["horizontalAccuracy"]?.number == 10, "hdop 2 × 5 m: \(state)")
            #expect(try await Self.send(h, .GET, base + "&timestamp=1800000010").status == 200)
            state = try await h.call(.GET, "/v1/devices/v/state", key: key)
            #expect(state["lastFix"]?["horizontalAccuracy"] == nil, "no accuracy given: \(state)")
            #expect(state["lastFix"]?["timestamp"]?.string == "2027-01-15T08:00:10Z")
            #expect(
                try await Self.send(
                    h, .GET, "/v1/ingest/osmand?key=\(key)&id=v&lat=10&lon=10&timestamp=1800000020&valid=false"
                ).status == 200)
            state = try await h.call(.GET, "/v1/devices/v/state", key: key)
            #expect(state["lastFix"]?["latitude"]?.number == 52.5, "an invalid fix is not used: \(state)")
            // Distrusted is not a licence for nonsense: an impossible position is still a 400
            // naming it (the contract fuzzer's case), and still changes nothing.
            let absurd = try await Self.send(
                h, .GET, "/v1/ingest/osmand?key=\(key)&id=v&lat=-6.9e16&lon=0&timestamp=1800000025&valid=false")
            #expect(absurd.status == 400)
            #expect(absurd["field"]?.string == "lat", "\(absurd)")
            state = try await h.call(.GET, "/v1/devices/v/state", key: key)
            #expect(state["lastFix"]?["latitude"]?.number == 52.5, "\(state)")
            #expect(
                try await Self.send(
                    h, .GET, "/v1/ingest/osmand?key=\(key)&id=v&location=52.6,13.5&timestamp=2027-01-15T08:00:30Z"
                ).status == 200)
            state = try await h.call(.GET, "/v1/devices/v/state", key: key)
            #expect(state["lastFix"]?["latitude"]?.number == 52.6, "\(state)")
        }
    }

    @Test("OsmAnd: malformed reports get a problem naming the parameter and change nothing")
    func osmandProblems() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            #expect(
                try await Self.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=d&lat=52.5&lon=13.4&timestamp=1800000000")
                    .status == 200)
            let cases: [(query: String, field: String)] = [
                ("lat=52.5&lon=13.4&timestamp=1800000010", "id"),
                ("id=d&lon=13.4&timestamp=1800000010", "lat"),
                ("id=d&lat=north&lon=13.4&timestamp=1800000010", "lat"),
                ("id=d&lat=nan&lon=13.4&timestamp=1800000010", "lat"),
                ("id=d&lat=91&lon=13.4&timestamp=1800000010", "lat"),
                ("id=d&lat=52.5&lon=13.4&timestamp=yesterday", "timestamp"),
                ("id=d&lat=52.5&lon=13.4&timestamp=1800000010&accuracy=-1", "accuracy"),
                ("id=d&location=52.5&timestamp=1800000010", "location"),
            ]
            for c in cases {
                let r = try await Self.send(h, .GET, "/v1/ingest/osmand?key=\(key)&" + c.query)
                #expect(r.status == 400, "\(c.query): \(r)")
                #expect(r["field"]?.string == c.field, "\(c.query): \(r)")
            }
            let badJSON = try await Self.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)",
                body:
                    #"{"device_id":"d","location":{"timestamp":"2027-01-15T08:00:10Z","coords":{"latitude":52.5,"longitude":200}}}"#
            )
            #expect(badJSON.status == 400, "\(badJSON)")
            #expect(badJSON["field"]?.string == "location.coords.longitude", "\(badJSON)")
            let mixed = try await Self.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)&lat=99",
                body: #"{"device_id":"d","location":{"coords":{"latitude":52.5,"longitude":13.4}}}"#)
            #expect(mixed.status == 400, "a JSON report with report parameters beside it: \(mixed)")
            #expect(mixed["field"]?.string == "lat")
            let notAnObject = try await Self.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)&id=d&lat=52.5&lon=13.4", body: "[null]")
            #expect(notAnObject.status == 400, "a JSON body must be the report object: \(notAnObject)")
            let invalidFlag = try await Self.send(
                h, .GET, "/v1/ingest/osmand?key=\(key)&id=d&lat=52.5&lon=13.4&valid=maybe")
            #expect(invalidFlag.status == 400)
            #expect(invalidFlag["field"]?.string == "valid")
            let older = try await Self.send(
                h, .GET, "/v1/ingest/osmand?key=\(key)&id=d&lat=52.5&lon=13.4&timestamp=1799999000")
            #expect(
                older.status == 200, "older than the last: acknowledged, set aside (AppAnswerPolicyTests): \(older)")
            #expect(try await Self.send(h, .GET, "/v1/ingest/osmand?key=wrong&id=d&lat=52.5&lon=13.4").status == 401)
            #expect(try await Self.send(h, .GET, "/v1/ingest/osmand?id=d&lat=52.5&lon=13.4").status == 401)
            let state = try await h.call(.GET, "/v1/devices/d/state", key: key)
            #expect(
                state["lastFix"]?["timestamp"]?.string == "2027-01-15T08:00:00Z",
                "only the first report was accepted: \(state)")
        }
    }
}
