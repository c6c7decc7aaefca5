import Foundation
import Testing

@testable import GeofenceServer

/// The Traccar Client SDK's `uploadJson` option (traccar-client-sdk, `HttpUploader.kt`): a
/// flat JSON array of locations, each the parameter form's fields, posted with
/// `Content-Type: application/json`. Refused, the app would retry it for ever.
extension IngestionRetryTests {
    /// One location as the SDK writes it: `speed` in knots, `timestamp` in Unix seconds.
    static func sdkLocation(
        _ lat: Double, _ lon: Double, _ dt: Double, id: String = "phone", extra: String = ""
    )
        -> String
    {
        #"{"id":"\#(id)","lat":\#(lat),"lon":\#(lon),"timestamp":\#(Int(t0 + dt)),"accuracy":5.0,"altitude":40.0,"speed":19.44,"bearing":90.0,"batt":71,"charge":false\#(extra)}"#
    }

    @Test("uploadJson: a flat array of locations is stored as the parameter form's fixes (knots, seconds, battery)")
    func uploadJSONAccepted() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let body =
                "[\(Self.sdkLocation(52.5, 13.4, 0)),\(Self.sdkLocation(52.51, 13.4, 10, extra: #","team":"red""#))]"
            let r = try await Self.post(h, key, body)
            #expect(r.status == 200, "\(r)")
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10"])
            let fixes = try await h.call(.GET, "/v1/devices/phone/track", key: key)["fixes"]?.array ?? []
            // 19.44 kn is 10.0 m/s.
            let speed = fixes.first?["speed"]?.doubleValue ?? 0
            let knots = 19.44 * 1_852.0 / 3_600.0
            #expect(abs(speed - knots) < 1e-9, "\(fixes)")
            #expect(fixes.first?["course"]?.doubleValue == 90)
            let list = try await h.call(.GET, "/v1/devices", key: key)["devices"]?.array ?? []
            #expect(list.first?["battery"]?["percent"]?.doubleValue == 71, "\(list)")
            // A retry of the same upload with one more location stores only the new one.
            let retry =
                "[\(Self.sdkLocation(52.5, 13.4, 0)),\(Self.sdkLocation(52.51, 13.4, 10)),\(Self.sdkLocation(52.52, 13.4, 20))]"
            #expect(try await Self.post(h, key, retry).status == 200)
            #expect(try await Self.track(h, key) == ["52.5 13.4 0", "52.51 13.4 10", "52.52 13.4 20"])
        }
    }

    @Test("uploadJson: a location without a position is a heartbeat; milliseconds stay milliseconds")
    func uploadJSONHeartbeatAndMilliseconds() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            let heartbeat = #"[{"id":"phone","timestamp":\#(Int(Self.t0)),"batt":50}]"#
            #expect(try await Self.post(h, key, heartbeat).status == 200)
            #expect(try await Self.setAside(h, key)?["no_position"]?.doubleValue == 1)
            let millis = #"[{"id":"phone","lat":52.5,"lon":13.4,"timestamp":\#(Int(Self.t0) * 1_000 + 5_000)}]"#
            #expect(try await Self.post(h, key, millis).status == 200)
            #expect(try await Self.track(h, key) == ["52.5 13.4 5"])
        }
    }

    @Test("uploadJson: problems name the location; one upload is one device; a bound key is checked")
    func uploadJSONRefusals() async throws {
        try await Harness.run(configure: { $0.maxBatchSize = 3 }) { h in
            let key = try await h.key("acme")
            let cases: [(String, Int, String?)] = [
                ("[\(Self.sdkLocation(52.5, 13.4, 0)),\(Self.sdkLocation(95, 13.4, 10))]", 400, "[1].lat"),
                (#"[{"id":"phone","lat":"north","lon":13.4}]"#, 400, "[0].lat"),
                (#"[{"id":7,"lat":52.5,"lon":13.4}]"#, 400, "[0].id"),
                (#"[{"lat":52.5,"lon":13.4}]"#, 400, "[0].id"),
                (
                    "[\(Self.sdkLocation(52.5, 13.4, 0)),\(Self.sdkLocation(52.5, 13.4, 10, id: "other"))]", 400,
                    "[1].id"
                ),
                ("[]", 400, "body"),
                ("[1]", 400, "[0]"),
                (
                    "[" + (0..<4).map { Self.sdkLocation(52.5, 13.4, Double($0)) }.joined(separator: ",") + "]", 413,
                    "body"
                ),
            ]
            for (body, status, field) in cases {
                let r = try await Self.post(h, key, body)
                #expect(r.status == status && r["field"]?.string == field, "\(body): \(r)")
            }
            #expect(try await h.call(.GET, "/v1/devices/phone/state", key: key).status == 404, "nothing stored")
            let bound = try await h.server.createAPIKey(tenant: "acme", scope: .device(devices: .device("mine")))
            let other = try await Self.post(h, bound, "[\(Self.sdkLocation(52.5, 13.4, 0))]")
            #expect(other.status == 403, "\(other)")
            let own = try await Self.post(h, bound, "[\(Self.sdkLocation(52.5, 13.4, 0, id: "mine"))]")
            #expect(own.status == 200, "\(own)")
        }
    }
}
