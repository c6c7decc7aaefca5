import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("Timestamps, numbers and detection")
struct SupportTests {
    @Test(arguments: [
        ("2015-06-02T17:52:33Z", 1_433_267_553.0),
        ("2015-06-02T17:52:33.25Z", 1_433_267_553.25),
        ("2015-06-02 19:52:33+02:00", 1_433_267_553.0),
        ("2015-06-02T12:52:33-0500", 1_433_267_553.0),
        ("2015-06-02t17:52:33", 1_433_267_553.0),
        ("2015-06-02T17:52Z", 1_433_267_520.0),
        ("2016-02-29T00:00:00Z", 1_456_704_000.0),
        ("1969-12-31T23:59:59Z", -1.0),
        ("1433267553.5", 1_433_267_553.5),
        ("-2", -2.0),
    ])
    func parsesTimestamps(text: String, seconds: Double) {
        #expect(Timestamp.parse(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(arguments: [
        "", "2015-02-29T00:00:00Z", "2015-06-02T25:00:00Z", "2015-06-02T17:52:33+2", "2015-06-02T17:52:33.Z",
        "2015-06-02X17:52:33Z", "2015-06-02T17:52:33Zjunk", "12:00", "1e", "2015/06/02",
    ])
    func rejectsBadTimestamps(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func formatsTimestampsInUTC() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_433_267_553)) == "2015-06-02T17:52:33Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_433_267_553.25)) == "2015-06-02T17:52:33.25Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.5Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e300)) == "invalid-date")
        #expect(Timestamp.format(Date(timeIntervalSince1970: .nan)) == "invalid-date")
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let t = Double(Int64.random(in: -5_000_000_000...5_000_000_000, using: &rng)) / 1000
            // Date stores seconds since 2001, so compare to well under a millisecond.
            let back = Timestamp.parse(Timestamp.format(Date(timeIntervalSince1970: t)))?.timeIntervalSince1970
            #expect(abs((back ?? .nan) - t) < 1e-6, "\(t)")
        }
    }

    @Test func numberParsingMatchesTheStandardLibrary() {
        var rng = SplitMix64(seed: 42)
        var texts = [
            "0", "-0", "1e22", "1e23", "123456789012345678901234567890", "0.1", ".5", "5.", "2.2250738585072014e-308",
            "4.9e-324", "1.7976931348623157e308", "31.2393940", "-121.4997810",
        ]
        for _ in 0..<5_000 {
            let v = Double(bitPattern: rng.next())
            if v.isFinite { texts.append(v.description) }
            texts.append(String(Double(Int.random(in: -1_800_000_000...1_800_000_000, using: &rng)) / 10_000_000))
        }
        for t in texts {
            let ours = Array(t.utf8).withBytes { NumberParsing.parseDouble($0) }
            #expect(ours == Double(t), "\(t)")
        }
        for bad in ["", "-", "+", ".", "1e", "1e+", "inf", "nan", "0x10", " 1", "1 ", "1.2.3", "--1"] {
            #expect(Array(bad.utf8).withBytes { NumberParsing.parseDouble($0) } == nil, "\(bad)")
        }
    }

    @Test func detectsFormatFromContent() {
        #expect(TrackFormat.detect(Array("\u{FEFF}  <?xml?>".utf8)) == .gpx)
        #expect(TrackFormat.detect(Array("\n$GPRMC".utf8)) == .nmea)
        #expect(TrackFormat.detect(Array("!AIVDM".utf8)) == .nmea)
        #expect(TrackFormat.detect(Array(" {\"type\"".utf8)) == .geojson)
        #expect(TrackFormat.detect(Array("time,lat,lon".utf8)) == .csv)
        #expect(TrackFormat.detect(Array(" \r\n".utf8)) == nil)
        #expect(TrackFormat.fromExtension("drive.GPX") == .gpx && TrackFormat.fromExtension("x") == nil)
    }

    @Test func readerDetectsFromContentNotFromName() throws {
        // A GPX document in a file called .csv is still read as GPX.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geoformats-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try "<gpx><trkpt lat=\"1\" lon=\"2\"><time>1970-01-01T00:00:01Z</time></trkpt></gpx>".write(
            to: url, atomically: true, encoding: .utf8)
        let reader = try TrackReader(contentsOf: url)
        #expect(reader.format == .gpx)
        #expect(try reader.readAll().count == 1)
        #expect(try reader.readAll().count == 1) // a file reader can be iterated again
    }

    @Test func aWrongFormatGivesTheErrorsOfTheGuessedFormat() {
        #expect(
            errors("$GPRMC,1,2", format: .csv) == [
                TrackParseError(format: .csv, position: .line(1), reason: .missingColumn("time"), isFatal: true)
            ])
    }
}
