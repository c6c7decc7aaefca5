import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

@Suite("Output formats")
struct OutputFormatTests {
    let event: ReportedEvent = {
        let fix = LocationFix(
            subject: "truck \"7\"", coordinate: try! Coordinate(latitude: 35.99581, longitude: -78.90655),
            horizontalAccuracy: 5, timestamp: Date(timeIntervalSince1970: 1_781_186_952))
        let e = TransitionEvent(
            kind: .enter, regionID: "bridge-1", subject: "truck \"7\"", fix: fix,
            time: Date(timeIntervalSince1970: 1_781_186_952),
            crossedAt: Date(timeIntervalSince1970: 1_781_186_941.4))
        return ReportedEvent(event: e, boundaryDistance: -23.4)
    }()

    @Test("jsonl has exactly the contract's keys, in order, and parses back field by field")
    func jsonlFields() throws {
        var w = JSONLinesEventWriter()
        let line = w.header() + w.text(for: event) + w.footer()
        #expect(line.hasSuffix("}\n"))
        #expect(line.hasPrefix("{\"event\":\"enter\",\"region\":\"bridge-1\",\"subject\":"))
        let keys = ["event", "region", "subject", "time", "latitude", "longitude", "crossedAt"]
        var at = line.startIndex
        for k in keys {
            let r = try #require(line.range(of: "\"\(k)\":", range: at..<line.endIndex))
            at = r.upperBound
        }
        let object = try #require(try parseLines(line).first)
        #expect(Set(object.keys) == Set(keys))
        #expect(object["event"] as? String == "enter")
        #expect(object["region"] as? String == "bridge-1")
        #expect(object["subject"] as? String == "truck \"7\"")
        #expect(object["time"] as? String == "2026-06-11T14:09:12Z")
        #expect(object["crossedAt"] as? String == "2026-06-11T14:09:01.400Z")
        #expect(object["latitude"] as? Double == 35.99581)
        #expect(object["longitude"] as? Double == -78.90655)
    }

    @Test("geojson is a FeatureCollection of Point features at the confirming fix")
    func geojson() throws {
        var w = GeoJSONEventWriter()
        let text = w.header() + w.text(for: event) + w.text(for: event) + w.footer()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection")
        let features = try #require(root["features"] as? [[String: Any]])
        #expect(features.count == 2)
        let geometry = try #require(features[0]["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [-78.90655, 35.99581])
        let props = try #require(features[0]["properties"] as? [String: Any])
        #expect(props["event"] as? String == "enter")
        #expect(props["region"] as? String == "bridge-1")
        #expect(props["time"] as? String == "2026-06-11T14:09:12Z")
        #expect(props["boundaryDistanceMeters"] as? Double == -23.4)
    }

    @Test("geojson with no events is still a valid empty FeatureCollection")
    func emptyGeoJSON() throws {
        var w = GeoJSONEventWriter()
        let text = w.header() + w.footer()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((root["features"] as? [Any])?.isEmpty == true)
    }

    @Test("table columns line up and show local clock time, distance past the edge and delay")
    func table() {
        var w = TableEventWriter(timeZone: TimeZone(identifier: "America/New_York")!)
        let header = w.header()
        let row = w.text(for: event)
        #expect(row.hasPrefix("10:09:12  ")) // 14:09:12 UTC is 10:09:12 EDT
        #expect(row.contains("23 m"))
        #expect(row.contains("10.6 s"))
        #expect(header.count == row.count)
        #expect(
            header.range(of: "region")?.lowerBound.utf16Offset(in: header)
                == row.range(of: "bridge-1")?.lowerBound.utf16Offset(in: row))
    }

    @Test("default format: table on a terminal, jsonl otherwise")
    func defaults() {
        #expect(OutputFormat.defaultFormat(isTerminal: true) == .table)
        #expect(OutputFormat.defaultFormat(isTerminal: false) == .jsonl)
    }

    @Test("ISO 8601 formatting of whole and fractional seconds, before and after 1970")
    func timestamps() {
        #expect(TimestampFormat.iso8601(secondsSince1970: 0) == "1970-01-01T00:00:00Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: 951_782_400) == "2000-02-29T00:00:00Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: 1.25) == "1970-01-01T00:00:01.250Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: 0.9996) == "1970-01-01T00:00:01Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: -0.5) == "1969-12-31T23:59:59.500Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: 253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(TimestampFormat.iso8601(secondsSince1970: 253_402_300_800) == "10000-01-01T00:00:00Z")
        #expect(JSONText.string("bridge-1") == "\"bridge-1\"")
        #expect(JSONText.string("a\"b\\c\n\u{1}é") == "\"a\\\"b\\\\c\\n\\u0001é\"")
        // The digit-by-digit form equals the padded one over years 0001–9999.
        var rng = SplitMix64(seed: 8)
        for _ in 0..<2_000 {
            let t =
                rng.uniform(-62_135_596_800, 253_402_300_799).rounded(.down)
                + (rng.nextUnit() < 0.5 ? 0 : Double(Int(rng.nextUnit() * 999) + 1) / 1_000)
            let ms = (t * 1000).rounded()
            let whole = (ms / 1000).rounded(.down)
            let expected = TimestampFormat.padded(TimestampFormat.civil(Int(whole)), millis: Int(ms - whole * 1000))
            #expect(TimestampFormat.iso8601(secondsSince1970: t) == expected)
        }
        #expect(TimestampFormat.iso8601(secondsSince1970: -1) == "1969-12-31T23:59:59Z")
    }
}
