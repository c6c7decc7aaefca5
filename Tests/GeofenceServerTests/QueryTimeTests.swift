import Foundation
import Testing

@testable import GeofenceServer

@Suite("Query bounds read as RFC 3339 by its grammar")
struct QueryTimeTests {
    @Test("ordinary times agree with Foundation's ISO 8601 reader")
    func agreesWithFoundation() throws {
        for text in [
            "2026-11-27T10:00:00Z", "1970-01-01T00:00:00Z", "2000-02-29T12:00:00+01:00", "2024-06-30T23:59:59.25-07:30",
        ] {
            let ours = try #require(QueryTime.parse(text), "\(text)")
            let foundation = try #require(FixJSON.parseRFC3339(text), "\(text)")
            #expect(abs(ours.timeIntervalSince1970 - foundation.timeIntervalSince1970) < 1e-6, "\(text)")
        }
    }

    @Test("early years, odd offsets and a leap second are times; impossible dates are not")
    func edges() {
        #expect(QueryTime.parse("0576-01-24T23:45:05+19:11").map { $0.timeIntervalSince1970 < 0 } == true)
        #expect(QueryTime.parse("0000-01-01T00:00:00Z") != nil)
        #expect(QueryTime.parse("2016-12-31T23:59:60Z")?.timeIntervalSince1970 == 1_483_228_800)
        for bad in [
            "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-11-27T24:00:00Z",
            "2026-11-27T10:00:00+24:00", "2026-11-27", "yesterday", "2026-11-27T10:00:00",
        ] {
            #expect(QueryTime.parse(bad) == nil, "\(bad)")
        }
    }
}
