import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

@testable import GeofenceServer

/// The answer policy of the app routes (docs/server.md, "Answer policy"): each app's real
/// message sequence — heartbeats, a retry of an accepted message, a report older than the
/// last, a phone clock 10 minutes fast, the queue sent after a day offline — is answered so
/// that the app keeps reporting; the events equal the JSON API's for the usable fixes; the
/// metric and the device's state count what was set aside.
@Suite("Tracking apps: the answer that keeps each app reporting")
struct AppAnswerPolicyTests {
    typealias Apps = TrackingAppIngestTests

    /// The walk of ``TrackingAppIngestTests``, with coordinates rounded to 6 decimals as
    /// Traccar Client for iOS writes them (`%.06f`), so every app sends the same positions.
    static let walk: [(lat: Double, lon: Double, t: Double)] = Apps.walk.map {
        (($0.lat * 1e6).rounded() / 1e6, ($0.lon * 1e6).rounded() / 1e6, $0.t)
    }

    /// The apps, each with the requests its source builds.
    enum App: String, CaseIterable, CustomStringConvertible {
        /// OwnTracks for Android: one JSON message per POST, Basic auth, X-Limit-U/D, topic
        /// `owntracks/http/TID` (HttpMessageProcessorEndpoint.kt).
        case ownTracksAndroid
        /// OwnTracks for iOS: the same over NSURLSession (Connection.m, sendHTTP).
        case ownTracksIOS
        /// Traccar Client 9 (flutter_background_geolocation): `{"location": {...}, "device_id"}`
        /// from its location template; the offline queue as one `location` array.
        case traccar9
        /// Traccar Client 10 (traccar-client-sdk HttpUploader.kt): a form POST; a heartbeat
        /// is `id`, `timestamp`, `batt` and `charge` with no position.
        case traccar10
        /// Traccar Client for iOS, native (ProtocolFormatter.swift): a POST whose query string
        /// replaces the configured URL's, so the key comes as URL credentials.
        case traccarIOSNative

        var description: String { rawValue }
        var device: String {
            switch self {
            case .ownTracksAndroid, .ownTracksIOS: "alice/phone"
            default: "phone-7"
            }
        }
        var sendsHeartbeats: Bool { self == .traccar10 }
    }

    /// One app's session against the harness: builds and sends its requests.
    struct Session {
        let app: App
        let h: Harness
        let key: String

        /// The SDK's timestamps: RFC 3339 with milliseconds.
        func iso(_ t: Double) -> String {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f.string(from: Date(timeIntervalSince1970: t))
        }

        func traccar9Location(_ p: (lat: Double, lon: Double, t: Double)) -> String {
            #"{"timestamp":"\#(iso(p.t))","coords":{"latitude":\#(p.lat),"longitude":\#(p.lon),"accuracy":8,"speed":1.5,"heading":0,"altitude":34},"is_moving":true,"odometer":1200,"event":"","battery":{"level":0.81,"is_charging":false},"activity":{"type":"on_foot"},"extras":{},"_":"&id=phone-7&lat=\#(p.lat)&lon=\#(p.lon)&timestamp=\#(iso(p.t))&"}"#
        }

        func ownTracksBody(_ p: (lat: Double, lon: Double, t: Double)) -> String {
            switch app {
            case .ownTracksAndroid:
                #"{"_type":"location","acc":8,"alt":34,"batt":81,"bs":1,"conn":"m","created_at":\#(Int(p.t) + 1),"lat":\#(p.lat),"lon":\#(p.lon),"m":3,"tid":"al","tst":\#(Int(p.t)),"vac":3,"vel":5,"topic":"owntracks/http/al"}"#
            default:
                #"{"_type":"location","acc":8,"alt":34,"batt":81,"bs":1,"conn":"w","lat":\#(p.lat),"lon":\#(p.lon),"m":2,"t":"u","tid":"al","tst":\#(Int(p.t)),"vac":3}"#
            }
        }

        /// Sends one fix as the app does; `Reply` is the server's answer.
        func report(_ p: (lat: Double, lon: Double, t: Double)) async throws -> Reply {
            switch app {
            case .ownTracksAndroid, .ownTracksIOS:
                return try await Apps.send(
                    h, .POST, "/v1/ingest/owntracks", body: ownTracksBody(p),
                    headers: [Apps.basic("alice", key), ("X-Limit-U", "alice"), ("X-Limit-D", "phone")])
            case .traccar9:
                return try await Apps.send(
                    h, .POST, "/v1/ingest/osmand?key=\(key)",
                    body: #"{"location":\#(traccar9Location(p)),"device_id":"phone-7"}"#)
            case .traccar10:
                return try await Apps.send(
                    h, .POST, "/v1/ingest/osmand?key=\(key)",
                    body:
                        "id=phone-7&lat=\(p.lat)&lon=\(p.lon)&timestamp=\(Int(p.t))&accuracy=8.0&altitude=34.0&speed=2.92&bearing=0.0&batt=81&charge=false",
                    contentType: "application/x-www-form-urlencoded")
            case .traccarIOSNative:
                let query = String(
                    format:
                        "id=phone-7&timestamp=%ld&lat=%.06f&lon=%.06f&speed=2.9&bearing=0.0&altitude=34.0&accuracy=8.0&batt=81.0",
                    Int(p.t), p.lat, p.lon)
                // URLSession sends the URL's credentials preemptively once challenged.
                return try await Apps.send(
                    h, .POST, "/v1/ingest/osmand?" + query, headers: [Apps.basic("phone", key)])
            }
        }

        /// Traccar Client 10's heartbeat: no position.
        func heartbeat(at t: Double) async throws -> Reply {
            try await Apps.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)", body: "id=phone-7&timestamp=\(Int(t))&batt=80&charge=false",
                contentType: "application/x-www-form-urlencoded")
        }

        /// The queue a phone sends after a day offline: one message each, or (Traccar Client 9
        /// with batch sync) one `location` array.
        func flush(_ queued: [(lat: Double, lon: Double, t: Double)]) async throws -> [Reply] {
            guard app == .traccar9 else {
                var replies: [Reply] = []
                for p in queued { replies.append(try await report(p)) }
                return replies
            }
            let array = queued.map(traccar9Location).joined(separator: ",")
            return [
                try await Apps.send(
                    h, .POST, "/v1/ingest/osmand?key=\(key)", body: #"{"location":[\#(array)],"device_id":"phone-7"}"#)
            ]
        }

        /// Whether the app takes `reply` as delivered and moves on to its next message.
        func delivered(_ reply: Reply) -> Bool {
            switch app {
            // OkHttp's isSuccessful, then the body parsed as a JSON array of messages.
            case .ownTracksAndroid, .ownTracksIOS: (200...299).contains(reply.status) && reply.json == .array([])
            // transistorsoft: 200, 201 or 204; ktor's isSuccess(): 2xx.
            case .traccar9, .traccar10: (200...299).contains(reply.status)
            // Any answer with a body counts, but a 4xx would lose the fix silently.
            case .traccarIOSNative: (200...299).contains(reply.status)
            }
        }
    }

    /// The events the JSON API gives for the rounded walk (device "reference").
    static func reference(_ h: Harness, key: String) async throws -> [String] {
        h.clock.advance(walk.last!.t + 1 - h.clock.date.timeIntervalSince1970)
        let put = try await h.call(
            .PUT, "/v1/regions/plaza", key: key,
            body: circleFeature("plaza", lat: Apps.centre.lat, lon: Apps.centre.lon, radius: 200))
        #expect(put.status == 201, "\(put)")
        for p in walk {
            let r = try await h.call(
                .POST, "/v1/devices/reference/locations", key: key, body: fixJSON(p.lat, p.lon, t: p.t, accuracy: 8))
            #expect(r.status == 200, "\(r)")
        }
        let events = try await Apps.events(of: "reference", h, key: key)
        #expect(events.count == 2, "the walk enters and leaves the circle: \(events)")
        return events
    }

    /// `geofence_app_reports_set_aside_total{reason=…}` from `/metrics`.
    static func setAsideMetric(_ h: Harness, key: String) async throws -> [String: Int] {
        let text = try await h.call(.GET, "/metrics", key: key).text
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("geofence_app_reports_set_aside_total{") {
            guard let open = line.range(of: "reason=\""), let close = line[open.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            counts[String(line[open.upperBound..<close])] = Int(value)
        }
        return counts
    }

    @Test(
        "each app's real sequence is answered as delivered, gives the JSON API's events, counts what was set aside",
        arguments: App.allCases, StoreKind.allCases)
    func appSequence(_ app: App, _ store: StoreKind) async throws {
        // The real window: 5 minutes of clock skew, as shipped.
        try await Harness.run(store, configure: { $0.fixTimeWindow.maximumSkew = .seconds(300) }) { h in
            let key = try await h.key("acme")
            let reference = try await Self.reference(h, key: key)
            let phone = Session(app: app, h: h, key: key)
            var answers: [(String, Reply)] = []
            var heartbeats = 0
            // Live, with the server's clock 2 s after each fix.
            for (i, p) in Self.walk.enumerated().prefix(40) {
                h.clock.advance(p.t + 2 - h.clock.date.timeIntervalSince1970)
                answers.append(("fix \(i)", try await phone.report(p)))
                if i == 10 { answers.append(("retry of the accepted fix 10", try await phone.report(p))) }
                if i == 20 { answers.append(("fix 17 again, older", try await phone.report(Self.walk[17]))) }
                if i == 30 {
                    for ahead in [600.0, 601] {
                        let fast = (lat: p.lat, lon: p.lon, t: h.clock.date.timeIntervalSince1970 + ahead)
                        answers.append(("phone clock 10 min fast", try await phone.report(fast)))
                    }
                }
                if app.sendsHeartbeats, i % 10 == 5 {
                    answers.append(("heartbeat", try await phone.heartbeat(at: p.t + 5)))
                    heartbeats += 1
                }
            }
            // A day offline: the rest of the walk is queued, then sent.
            h.clock.advance(Self.walk.last!.t + 86_400 - h.clock.date.timeIntervalSince1970)
            for reply in try await phone.flush(Array(Self.walk[40...])) {
                answers.append(("after a day offline", reply))
            }
            if app.sendsHeartbeats {
                answers.append(
                    ("heartbeat after the flush", try await phone.heartbeat(at: h.clock.date.timeIntervalSince1970)))
                heartbeats += 1
            }

            for (what, reply) in answers {
                #expect(phone.delivered(reply), "\(app), \(what): \(reply)")
            }
            let events = try await Apps.events(of: app.device, h, key: key)
            #expect(events == reference.map { $0.replacingOccurrences(of: "reference", with: app.device) }, "\(app)")
            let expected = ["duplicate": 1, "older": 1, "clock": 2, "no_position": heartbeats].filter { $0.value > 0 }
            #expect(try await Self.setAsideMetric(h, key: key).filter { $0.value > 0 } == expected, "\(app)")
            let state = try await h.call(
                .GET, "/v1/devices/\(app.device.replacingOccurrences(of: "/", with: "%2F"))/state", key: key)
            for (reason, n) in expected {
                #expect(state["setAside"]?[reason]?.number == Double(n), "\(app) \(reason): \(state)")
            }
            #expect(state["lastFix"]?["latitude"]?.number == Self.walk.last!.lat, "\(state)")
        }
    }

    @Test("Traccar Client for iOS: its query-only request is challenged for Basic and then reports")
    func traccarIOSNativeAuthenticates() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let p = Self.walk[0]
            let query = String(format: "id=ios&timestamp=%ld&lat=%.06f&lon=%.06f&accuracy=8.0", Int(p.t), p.lat, p.lon)
            // The configured URL was https://phone:KEY@host/v1/ingest/osmand?key=KEY: the app
            // replaced the query, so the first request carries no key at all.
            let first = try await Apps.send(h, .POST, "/v1/ingest/osmand?" + query)
            #expect(first.status == 401, "\(first)")
            let challenges = first.headers.filter { $0.0.lowercased() == "www-authenticate" }.map(\.1)
            #expect(challenges.first?.hasPrefix("Basic realm=") == true, "Basic first: \(challenges)")
            #expect(challenges.contains("Bearer"), "\(challenges)")
            #expect(try await h.call(.GET, "/v1/devices/ios/state", key: key).status == 404, "nothing stored")
            // URLSession answers the Basic challenge with the URL's user and password.
            let second = try await Apps.send(
                h, .POST, "/v1/ingest/osmand?" + query, headers: [Apps.basic("phone", key)])
            #expect(second.status == 200, "\(second)")
            let state = try await h.call(.GET, "/v1/devices/ios/state", key: key)
            #expect(state["lastFix"]?["latitude"]?.number == p.lat, "\(state)")
            // The JSON API keeps its Bearer-only challenge.
            let api = try await h.call(.GET, "/v1/regions", key: nil)
            #expect(api.status == 401)
            #expect(api.header("WWW-Authenticate") == "Bearer", "\(api.headers)")
        }
    }

    @Test("a message the server understands but will not use is acknowledged, counted, and stores nothing")
    func setAsideStoresNothing() async throws {
        try await Harness.run(configure: { $0.fixTimeWindow.maximumSkew = .seconds(300) }) { h in
            let key = try await h.key("acme")
            let now = Int(h.clock.date.timeIntervalSince1970)
            let osmand = "/v1/ingest/osmand?key=\(key)&id=quiet"
            let cases: [(String, String)] = [
                ("heartbeat", osmand + "&timestamp=\(now)&batt=50"),
                ("distrusted", osmand + "&lat=52.5&lon=13.4&timestamp=\(now)&valid=false"),
                ("distrusted heartbeat", osmand + "&timestamp=\(now)&valid=0"),
                ("clock far ahead", osmand + "&lat=52.5&lon=13.4&timestamp=\(now + 3_600)"),
                ("before 2000", osmand + "&lat=52.5&lon=13.4&timestamp=86400"),
                ("absurd milliseconds", osmand + "&lat=52.5&lon=13.4&timestamp=99999999999999999"),
                ("absurd float", osmand + "&lat=52.5&lon=13.4&timestamp=1e300"),
            ]
            for (what, path) in cases {
                let r = try await Apps.send(h, .GET, path)
                #expect(r.status == 200, "\(what): \(r)")
            }
            let ownTracksAhead = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks?u=q&d=ot",
                body: #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(now + 900)}"#,
                headers: [Apps.basic("q", key)])
            #expect(ownTracksAhead.status == 200, "\(ownTracksAhead)")
            #expect(ownTracksAhead.json == .array([]))
            #expect(try await h.call(.GET, "/v1/events", key: key)["events"]?.array?.isEmpty == true)
            let state = try await h.call(.GET, "/v1/devices/quiet/state", key: key)
            #expect(state.status == 200, "a device with only set-aside reports shows why: \(state)")
            #expect(state["lastFix"] == .null, "\(state)")
            #expect(state["setAside"]?["no_position"]?.number == 1, "\(state)")
            #expect(state["setAside"]?["distrusted"]?.number == 2, "\(state)")
            #expect(state["setAside"]?["clock"]?.number == 4, "\(state)")
            #expect(state["setAside"]?["last"]?["reason"]?.string == "clock", "\(state)")
            let metric = try await Self.setAsideMetric(h, key: key)
            #expect(metric["clock"] == 5 && metric["distrusted"] == 2 && metric["no_position"] == 1, "\(metric)")
            // Still refused: what can never become valid, which no app sends.
            for (query, field) in [
                ("&lat=95&lon=13.4&timestamp=\(now)", "lat"), ("&lat=52.5&timestamp=\(now)", "lon"),
                ("&lat=x&lon=1", "lat"), ("&lat=1&lon=2&timestamp=soon", "timestamp"),
            ] {
                let r = try await Apps.send(h, .GET, osmand + query)
                #expect(r.status == 400, "\(query): \(r)")
                #expect(r["field"]?.string == field, "\(query): \(r)")
            }
        }
    }

    @Test("a JSON array over maxBatchSize is a 413 on every route: fixes, Traccar location arrays, imports")
    func oneBatchLimit() async throws {
        try await Harness.run(configure: { $0.maxBatchSize = 50 }) { h in
            let key = try await h.key("acme")
            let t = h.clock.date.timeIntervalSince1970
            let fixes = (0..<51).map { i in fixJSON(52.5, 13.4, t: t + Double(i), accuracy: 8) }
            let api = try await h.call(
                .POST, "/v1/devices/d/locations", key: key, body: "[\(fixes.joined(separator: ","))]")
            #expect(api.status == 413, "\(api)")
            let wrapped = try await h.call(
                .POST, "/v1/devices/d/locations", key: key, body: #"{"fixes":[\#(fixes.joined(separator: ","))]}"#)
            #expect(wrapped.status == 413, "\(wrapped)")
            let locations = (0..<51).map { i in
                #"{"timestamp":"\#(FixJSONTime.iso(t + Double(i)))","coords":{"latitude":52.5,"longitude":13.4}}"#
            }
            let traccar = try await Apps.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)",
                body: #"{"device_id":"d","location":[\#(locations.joined(separator: ","))]}"#)
            #expect(traccar.status == 413, "\(traccar)")
            #expect(traccar["field"]?.string == "location")
            let ownTracks = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks?u=a&d=b",
                body: "["
                    + Array(repeating: #"{"_type":"location","lat":1,"lon":2,"tst":1800000000}"#, count: 51)
                    .joined(separator: ",") + "]",
                headers: [Apps.basic("a", key)])
            #expect(ownTracks.status == 413, "\(ownTracks)")
            let circles = (0..<51).map { i in circleFeature("c\(i)", lat: 52.5, lon: 13.4, radius: 50) }
            let tooMany = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(circles.joined(separator: ","))]}"#)
            #expect(tooMany.status == 413, "\(tooMany)")
            #expect(tooMany["field"]?.string == "features")
            #expect(try await h.call(.GET, "/v1/regions", key: key)["regions"]?.array?.isEmpty == true)
            // At the limit, the same Traccar batch is taken whole.
            let fifty = try await Apps.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)",
                body: #"{"device_id":"d","location":[\#(locations.prefix(50).joined(separator: ","))]}"#)
            #expect(fifty.status == 200, "\(fifty)")
            #expect(try await h.call(.GET, "/v1/devices/d/state", key: key)["lastFix"]?["timestamp"]?.string != nil)
        }
    }
}

extension AppAnswerPolicyTests {
    @Test("hostile app reports: bad ids and oversized bodies are refused and store nothing; absurd times are set aside")
    func hostileReports() async throws {
        try await Harness.run(configure: {
            $0.fixTimeWindow.maximumSkew = .seconds(300)
            $0.maxBodyBytes = 64 * 1024
        }) { h in
            let key = try await h.key("acme")
            let now = Int(h.clock.date.timeIntervalSince1970)
            let fix = "&lat=52.5&lon=13.4&timestamp=\(now)"
            // Ids: a control character, 257 characters, and an empty id are refused; any other
            // character is an id.
            for (id, status) in [
                ("a%00b", 400), ("tab%09id", 400), (String(repeating: "x", count: 257), 400), ("", 400),
                ("%F0%9F%9A%B2%20bike%2Fone", 200), (String(repeating: "y", count: 256), 200),
            ] {
                let r = try await Apps.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=\(id)" + fix)
                #expect(r.status == status, "id \(id.prefix(20)): \(r)")
            }
            let control = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks?u=a%01&d=b",
                body: #"{"_type":"location","lat":1,"lon":2,"tst":\#(now)}"#,
                headers: [Apps.basic("a", key)])
            #expect(control.status == 400, "\(control)")
            // A body over maxBodyBytes is a 413 on both routes, whatever it holds.
            let huge = String(repeating: "a", count: 70 * 1024)
            let bigForm = try await Apps.send(
                h, .POST, "/v1/ingest/osmand?key=\(key)", body: "id=big\(fix)&pad=\(huge)",
                contentType: "application/x-www-form-urlencoded")
            #expect(bigForm.status == 413, "\(bigForm)")
            let bigJSON = try await Apps.send(
                h, .POST, "/v1/ingest/owntracks?u=a&d=b",
                body: #"{"_type":"location","lat":1,"lon":2,"tst":\#(now),"pad":"\#(huge)"}"#,
                headers: [Apps.basic("a", key)])
            #expect(bigJSON.status == 413, "\(bigJSON)")
            // Absurd times are understood and set aside: never stored, never "last accepted".
            for t in ["-9223372036854775808", "1e308", "-1e308", "253402300800", "0"] {
                let r = try await Apps.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=clock&lat=1&lon=2&timestamp=\(t)")
                #expect(r.status == 200, "timestamp \(t): \(r)")
            }
            for t in ["nan", "inf", "1e999x"] {
                let r = try await Apps.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=clock&lat=1&lon=2&timestamp=\(t)")
                #expect(r.status == 400, "timestamp \(t): \(r)")
            }
            let state = try await h.call(.GET, "/v1/devices/clock/state", key: key)
            #expect(state["lastFix"] == .null && state["setAside"]?["clock"]?.number == 5, "\(state)")
            #expect(try await h.call(.GET, "/v1/devices/big/state", key: key).status == 404)
            let later = try await Apps.send(h, .GET, "/v1/ingest/osmand?key=\(key)&id=clock" + fix)
            #expect(later.status == 200)
            #expect(try await h.call(.GET, "/v1/devices/clock/state", key: key)["lastFix"]?["latitude"]?.number == 52.5)
        }
    }

    @Test("the set-aside ledger tracks at most its capacity of devices; the ones tracked keep counting")
    func ledgerBound() async {
        let ledger = SetAsideLedger(capacity: 2)
        let t = Date(timeIntervalSince1970: 1_800_000_000)
        for device in ["a", "b", "c"] { await ledger.record(tenant: "acme", device: device, reason: .clock, now: t) }
        await ledger.record(tenant: "acme", device: "a", reason: .older, count: 3, now: t.addingTimeInterval(1))
        #expect(await ledger.entry(tenant: "acme", device: "c") == nil, "past the capacity: the metric only")
        let a = await ledger.entry(tenant: "acme", device: "a")
        #expect(a?.counts == [.clock: 1, .older: 3] && a?.lastReason == .older)
        #expect(await ledger.entry(tenant: "other", device: "a") == nil, "per tenant")
    }
}

/// RFC 3339 times for hand-built Traccar bodies.
enum FixJSONTime {
    static func iso(_ t: Double) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: t)) }
}
