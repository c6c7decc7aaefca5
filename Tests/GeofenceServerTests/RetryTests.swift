import Foundation
import GeofenceServer
import Testing

/// A client whose answer got lost re-sends the batch; that must never count it twice.
@Suite("Retrying a fix batch is safe")
struct RetryTests {
    static let t0 = 1_800_000_000.0

    @Test("re-sending the last committed batch is answered as a duplicate and changes nothing")
    func resentBatchIsADuplicate() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/bund", key: key,
                body: circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000))
            let outside = fixJSON(31.259394, 121.499781, t: Self.t0)
            let inside = (1...4).map { fixJSON(31.240394, 121.499781, t: Self.t0 + 10 * Double($0)) }.joined(
                separator: ",")
            let batch = "{\"fixes\":[\(outside),\(inside)]}"
            let first = try await h.call(.POST, "/v1/devices/phone-1/locations", key: key, body: batch)
            #expect(first.status == 200)
            #expect(first["events"]?.array?.count == 1)
            let before = try await h.call(.GET, "/v1/events", key: key).text

            let again = try await h.call(.POST, "/v1/devices/phone-1/locations", key: key, body: batch)
            #expect(again.status == 200, "\(again)")
            #expect(again["duplicate"] == .bool(true))
            #expect(again["accepted"]?.number == 0)
            #expect(again["events"]?.array?.isEmpty == true)
            #expect(try await h.call(.GET, "/v1/events", key: key).text == before)

            // The single last fix alone is the same retry.
            let last = fixJSON(31.240394, 121.499781, t: Self.t0 + 40)
            #expect(
                try await h.call(.POST, "/v1/devices/phone-1/locations", key: key, body: last)["duplicate"]
                    == .bool(true))
        }
    }

    @Test("a different batch ending at the last accepted time is not mistaken for a retry")
    func differentBatchIsNotADuplicate() async throws {
        try await Harness.run { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .POST, "/v1/devices/phone-1/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0))
            // Same time, another position: accepted as a new fix.
            let other = try await h.call(
                .POST, "/v1/devices/phone-1/locations", key: key, body: fixJSON(31.3, 121.5, t: Self.t0))
            #expect(other.status == 200)
            #expect(other["duplicate"] == nil)
            #expect(other["accepted"]?.number == 1)
            // Older than the last accepted fix and not a retry: 409 with the last accepted time.
            let old = try await h.call(
                .POST, "/v1/devices/phone-1/locations", key: key, body: fixJSON(31.2, 121.5, t: Self.t0 - 5))
            #expect(old.status == 409)
            #expect(old["lastAcceptedTimestamp"]?.string == FixJSON.formatRFC3339(Date(timeIntervalSince1970: Self.t0)))
        }
    }
}
