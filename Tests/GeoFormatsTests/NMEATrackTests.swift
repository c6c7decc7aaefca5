import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("NMEA 0183 tracks")
struct NMEATrackTests {
    @Test func mergesRMCAndGGAOfTheSameSecond() throws {
        let reader = try TrackReader(contentsOf: try fixture("shanghai.nmea"))
        #expect(reader.format == .nmea)
        let pts = try reader.readAll()
        #expect(pts.count == 3)
        let p = pts[0]
        #expect(p.time == date("2015-06-02T02:08:00Z"))
        #expect(abs(p.coordinate.latitude - (31 + 15.5636 / 60)) < 1e-12)
        #expect(abs(p.coordinate.longitude - (121 + 29.9869 / 60)) < 1e-12)
        #expect(p.elevation == 12.5)
        #expect(p.horizontalAccuracy == 1.2 * 5)
        #expect(abs(p.speed! - 10 * 1852 / 3600) < 1e-12)
        #expect(p.course == 180)
        #expect(pts[2].time == date("2015-06-02T02:08:20Z"))
    }

    @Test func ggaAloneTakesTheDateOfTheLastRMCAndRollsOverMidnight() throws {
        let text = [
            sentence("GNRMC,235959.00,A,4807.038,N,01131.000,E,0.0,,230394,,,A"),
            sentence("GNGGA,000001.50,4807.038,S,01131.000,W,1,08,2.0,545.4,M,46.9,M,,"),
        ].joined(separator: "\n")
        let pts = try TrackReader(string: text, options: .init(metresPerHDOP: 3)).readAll()
        #expect(pts.count == 2)
        #expect(pts[0].time == date("1994-03-23T23:59:59Z"))
        #expect(pts[1].time == date("1994-03-24T00:00:01.5Z"))
        #expect(pts[1].coordinate.latitude < 0 && pts[1].coordinate.longitude < 0)
        #expect(pts[1].horizontalAccuracy == 6)
        #expect(pts[0].course == nil)
    }

    @Test func otherSentencesAreSkippedSilently() throws {
        let text = [
            sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"), "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26",
            sentence("GPRMC,120000,A,0000.000,N,00000.000,E,,,010100,,"),
        ].joined(separator: "\n")
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.map(\.time) == [date("2000-01-01T12:00:00Z")])
    }

    // Malformed inputs.

    @Test func badChecksumNamesLineAndBothValues() {
        let good = sentence("GPRMC,120000,A,0000.000,N,00000.000,E,,,010100,,")
        var bad = sentence("GPRMC,120001,A,0000.000,N,00000.000,E,,,010100,,")
        bad.removeLast(2)
        bad += "00"
        let errs = errors(good + "\n" + bad + "\n")
        guard errs.count == 1 else {
            Issue.record("expected one error, got \(errs)")
            return
        }
        #expect(errs[0].position == .line(2, column: 51))
        guard case .checksumMismatch(let expected, let found) = errs[0].reason else {
            Issue.record("\(errs[0])")
            return
        }
        #expect(found == 0 && expected != 0)
    }

    @Test func truncatedSentenceHasNoChecksum() {
        let cut = String(sentence("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").prefix(30))
        #expect(errors(cut) == [TrackParseError(format: .nmea, position: .line(1), reason: .missingChecksum)])
    }

    @Test func sentenceWithTooFewFieldsIsTruncated() {
        #expect(
            errors(sentence("GPRMC,120000,A,0000.000,N")) == [
                TrackParseError(format: .nmea, position: .line(1), reason: .truncatedSentence(type: "RMC", fields: 5))
            ])
    }

    @Test func voidFixIsReportedAsNoFix() {
        #expect(
            errors(sentence("GPRMC,120000,V,,,,,,,010100,,")) == [
                TrackParseError(format: .nmea, position: .line(1, column: 15), reason: .noFix)
            ])
    }

    @Test func ggaBeforeAnyRMCHasNoDate() {
        #expect(
            errors(sentence("GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")) == [
                TrackParseError(format: .nmea, position: .line(1), reason: .noDate)
            ])
    }

    @Test func lineThatIsNotASentenceIsReported() {
        let text = sentence("GPRMC,120000,A,0000.000,N,00000.000,E,,,010100,,") + "\n  GPRMC,garbage\n"
        #expect(
            errors(text, format: .nmea) == [
                TrackParseError(format: .nmea, position: .line(2, column: 3), reason: .notASentence)
            ])
        #expect(points(text, format: .nmea).count == 1)
    }

    @Test func badLatitudeTextNamesTheField() {
        #expect(
            errors(sentence("GPRMC,120000,A,00x0.000,N,00000.000,E,,,010100,,")) == [
                TrackParseError(
                    format: .nmea, position: .line(1, column: 17),
                    reason: .invalidNumber(field: "latitude", text: "00x0.000"))
            ])
    }

    @Test func badDateIsAnInvalidTime() {
        #expect(
            errors(sentence("GPRMC,120000,A,0000.000,N,00000.000,E,,,310200,,")) == [
                TrackParseError(format: .nmea, position: .line(1, column: 42), reason: .invalidTime("310200"))
            ])
    }
}
