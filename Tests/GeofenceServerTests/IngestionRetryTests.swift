import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

/// Tracking apps retry a batch whose answer was lost, and may append the fixes queued since
/// (docs/server.md, "Answer policy"): what was stored is never stored twice, the rest is.
@Suite("Retried app batches: a fix already stored is a duplicate, never stored twice")
struct IngestionRetryTests {
    typealias Apps = TrackingAppIngestTests
    static let t0 = 1_800_000_000.0

    /// Traccar Client's JSON form with `fixes` as (lat, lon, seconds after t0).
    static func traccar(_ fixes: [(Double, Double, Double)], device: String = "phone") -> String {
        let items = fixes.map { lat, lon, dt in
            let time = FixJSON.formatRFC3339(Date(timeIntervalSince1970: t0 + dt))
            return #"{"timestamp":"\#(time)","coords":{"latitude":\#(lat),"longitude":\#(lon),"accuracy":5}}"#
        }
        return #"{"device_id":"\#(device)","location":[\#(items.joined(separator: ","))]}"#
    }

    static func post(_ h: Harness, _ key: String, _ body: String) async throws -> Reply {
        try await Apps.send(h, .POST, "/v1/ingest/osmand", body: body, headers: [("Authorization", "Bearer \(key)")])
    }

    /// The stored track as "lat lon seconds-after-t0".
    static func track(_ h: Harness, _ key: String, device: String = "phone") async throws -> [String] {
        let reply = try await h.call(.GET, "/v1/devices/\(device)/track", key: key)
        return (reply["fixes"]?.array ?? []).map { f in
            let t = f["timestamp"]?.string.flatMap(FixJSON.parseRFC3339)?.timeIntervalSince1970 ?? .nan
            return "\(f["latitude"]?.doubleValue ?? .nan) \(f["longitude"]?.doubleValue ?? .nan) \(Int(t - t0))"
        }
    }

    static func setAside(_ h: Harness, _ key: String, device: String = "phone") async throws -> ServerJSON? {
        try await h.call(.GET, "/v1/devices/\(device)/state", key: key)["setAside"]
    }

    static let a = (52.50, 13.40, 0.0)
    static let b = (52.51, 13.40, 10.0)
    static let c = (52.52, 13.40, 20.0)

    @Test("[A, B] then [A, B, C] stores A, B, C; A and B are set aside as older and duplicate")
    func retryWithAppendedFix() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            #expect(try await Self.post(h, key, Self.traccar([Self.a, Self.b])).status == 200)
            #expect(try await Self.post(h, key, Self.traccar([Self.a, Self.b, Self.c])).status == 200)
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10", "52.52 13.4 20"])
            let counted = try await Self.setAside(h, key)
            #expect(counted?["duplicate"]?.doubleValue == 1, "\(String(describing: counted))")
            #expect(counted?["older"]?.doubleValue == 1, "\(String(describing: counted))")
        }
    }

    @Test("a retry that starts with the stored fix ([B, C] after [A, B]) stores C only")
    func retryStartingAtLastFix() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            #expect(try await Self.post(h, key, Self.traccar([Self.a, Self.b])).status == 200)
            #expect(try await Self.post(h, key, Self.traccar([Self.b, Self.c])).status == 200)
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10", "52.52 13.4 20"])
            #expect(try await Self.setAside(h, key)?["duplicate"]?.doubleValue == 1)
        }
    }

    @Test("a fix at the stored fix's time in another place is a second observation: stored")
    func sameTimeElsewhere() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let elsewhere = (52.515, 13.40, 10.0)
            #expect(try await Self.post(h, key, Self.traccar([Self.a, Self.b])).status == 200)
            #expect(try await Self.post(h, key, Self.traccar([Self.a, elsewhere, Self.c])).status == 200)
            #expect(
                try await Self.track(h, key) == [
                    "52.5 13.4 0", "52.51 13.4 10", "52.515 13.4 10", "52.52 13.4 20",
                ])
            let counted = try await Self.setAside(h, key)
            #expect(
                counted?["duplicate"] == nil && counted?["older"]?.doubleValue == 1, "\(String(describing: counted))")
        }
    }

    @Test("a fix twice in one batch is stored once")
    func duplicateInsideBatch() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            #expect(try await Self.post(h, key, Self.traccar([Self.a, Self.b, Self.b, Self.c])).status == 200)
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10", "52.52 13.4 20"])
            #expect(try await Self.setAside(h, key)?["duplicate"]?.doubleValue == 1)
        }
    }

    @Test("the JSON API answers a batch that holds the last fix again and goes on with 409, storing nothing")
    func jsonAPIRefusesResentLastFix() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let fix = { (p: (Double, Double, Double)) in fixJSON(p.0, p.1, t: Self.t0 + p.2, accuracy: 5) }
            let first = try await h.call(
                .POST, "/v1/devices/phone/locations", key: key, body: "[\(fix(Self.a)),\(fix(Self.b))]")
            #expect(first.status == 200)
            let again = try await h.call(
                .POST, "/v1/devices/phone/locations", key: key, body: "[\(fix(Self.b)),\(fix(Self.c))]")
            #expect(again.status == 409 && again["field"]?.string == "[0].timestamp", "\(again)")
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10"])
            // The exact retry is still a duplicate answered 200.
            let retry = try await h.call(
                .POST, "/v1/devices/phone/locations", key: key, body: "[\(fix(Self.a)),\(fix(Self.b))]")
            #expect(retry.status == 200 && retry["duplicate"] == .bool(true), "\(retry)")
        }
    }

    @Test("RetriedFixes: the part sent before is dropped up to the stored fix; after it, only older fixes")
    func splitRules() {
        func fix(_ lat: Double, _ t: Double) -> LocationFix {
            LocationFix(
                subject: "d", coordinate: Coordinate(uncheckedLatitude: lat, longitude: 13),
                timestamp: Date(timeIntervalSince1970: t))
        }
        let last = fix(1, 10)
        // [A, B0, B, C] where B0 shares B's time: everything up to B was sent before.
        let split = RetriedFixes([fix(0, 0), fix(2, 10), fix(1, 10), fix(3, 20)], after: last)
        #expect(split.new == [fix(3, 20)] && split.older == 1 && split.duplicate == 2)
        // Without the stored fix: older ones set aside, same time elsewhere kept.
        let other = RetriedFixes([fix(0, 0), fix(2, 10), fix(3, 20)], after: last)
        #expect(other.new == [fix(2, 10), fix(3, 20)] && other.older == 1 && other.duplicate == 0)
        // Another accuracy does not make another observation.
        var blurred = last
        blurred.horizontalAccuracy = 50
        let retried = RetriedFixes([blurred], after: last)
        #expect(retried.new.isEmpty && retried.older == 0 && retried.duplicate == 1)
    }
}
