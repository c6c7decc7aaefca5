import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("CSV tracks")
struct CSVTrackTests {
    @Test func readsTheFixtureWithOptionalColumnsAndBothTimeForms() throws {
        let reader = try TrackReader(contentsOf: try fixture("shanghai.csv"))
        #expect(reader.format == .csv)
        let pts = try reader.readAll()
        #expect(pts.count == 3)
        #expect(pts[0].time == date("2015-06-02T02:08:00Z"))
        #expect(pts[0].coordinate == Coordinate(uncheckedLatitude: 31.259394, longitude: 121.499781))
        #expect(pts[0].horizontalAccuracy == 5 && pts[0].speed == 10.5 && pts[0].course == 180)
        #expect(pts[1].time.timeIntervalSince1970 == 1_433_210_890.25)
        #expect(pts[1].horizontalAccuracy == nil && pts[1].speed == nil && pts[1].course == nil)
        #expect(pts[2].time.timeIntervalSince1970 == 1_433_211_000)
        #expect(pts[2].horizontalAccuracy == 8.5 && pts[2].speed == 0)
    }

    @Test func columnsAreFoundByNameInAnyOrderAndExtraColumnsAreIgnored() throws {
        let text = "Lon, note ,LAT,Time,hacc\r\n121.5,\"a, quoted\",31.2,2015-06-02T10:08:00+08:00,3\r\n"
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.count == 1)
        #expect(pts[0].coordinate.latitude == 31.2 && pts[0].coordinate.longitude == 121.5)
        #expect(pts[0].time == date("2015-06-02T02:08:00Z"))
        #expect(pts[0].horizontalAccuracy == 3)
    }

    @Test func orderIsPreservedNotSorted() throws {
        let text = "time,latitude,longitude\n20,1,1\n10,2,2\n"
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.map(\.time.timeIntervalSince1970) == [20, 10])
    }

    @Test func negativeSpeedAndCourseMeanUnknown() throws {
        let pts = try TrackReader(string: "time,latitude,longitude,speed,course\n0,1,2,-1,-1\n").readAll()
        #expect(pts[0].speed == nil && pts[0].course == nil)
    }

    @Test func badLinesAreReportedWithLineNumbersAndGoodLinesAreUsed() {
        let text = """
            time,latitude,longitude
            2015-06-02T02:08:00Z,31.2,121.4
            2015-06-02T02:08:01Z,abc,121.4
            2015-06-02T02:08:02Z,31.2,121.4

            2015-06-02T02:08:03Z,95,121.4
            2015-06-02T02:08:04Z,31.3,121.5
            """
        var reported: [TrackParseError] = []
        let good = TrackReader(string: text).readAll { reported.append($0) }
        #expect(good.count == 3)
        #expect(
            good.map(\.time) == [
                date("2015-06-02T02:08:00Z"), date("2015-06-02T02:08:02Z"), date("2015-06-02T02:08:04Z"),
            ])
        #expect(
            reported == [
                TrackParseError(
                    format: .csv, position: .line(3, column: 22), reason: .invalidNumber(field: "latitude", text: "abc")
                ),
                TrackParseError(format: .csv, position: .line(6), reason: .invalidCoordinate(.latitudeOutOfRange(95))),
            ])
    }

    @Test func strictModeThrowsTheFirstError() {
        #expect(throws: TrackParseError(format: .csv, position: .line(3, column: 1), reason: .invalidTime("yesterday")))
        {
            try TrackReader(string: "time,latitude,longitude\n1,2,3\nyesterday,2,3\nbad,,\n").readAll()
        }
    }

    // Malformed inputs: each asserts the exact error and its position.

    @Test func headerWithoutLongitudeIsFatal() {
        let errs = errors("time,latitude,speed\n1,2,3\n")
        #expect(
            errs == [
                TrackParseError(format: .csv, position: .line(1), reason: .missingColumn("longitude"), isFatal: true)
            ])
    }

    @Test func duplicateColumnIsFatal() {
        #expect(
            errors("time,lat,latitude,lon\n") == [
                TrackParseError(format: .csv, position: .line(1), reason: .duplicateColumn("latitude"), isFatal: true)
            ])
    }

    @Test func wrongFieldCountNamesTheLine() {
        let errs = errors("time,latitude,longitude\n1,2,3\n1,2,3,4\n1,2\n")
        #expect(
            errs == [
                TrackParseError(format: .csv, position: .line(3), reason: .wrongFieldCount(expected: 3, found: 4)),
                TrackParseError(format: .csv, position: .line(4), reason: .wrongFieldCount(expected: 3, found: 2)),
            ])
    }

    @Test func unparsableNumberNamesFieldAndColumn() {
        #expect(
            errors("time,latitude,longitude\n1,2,12.5.3\n") == [
                TrackParseError(
                    format: .csv, position: .line(2, column: 5),
                    reason: .invalidNumber(field: "longitude", text: "12.5.3"))
            ])
    }

    @Test func badTimeIsReported() {
        #expect(
            errors("time,latitude,longitude\n2015-13-02T00:00:00Z,2,3\n") == [
                TrackParseError(
                    format: .csv, position: .line(2, column: 1), reason: .invalidTime("2015-13-02T00:00:00Z"))
            ])
    }

    @Test func emptyRequiredValueIsReported() {
        #expect(
            errors("time,latitude,longitude\n1,,3\n") == [
                TrackParseError(format: .csv, position: .line(2, column: 3), reason: .missingValue("latitude"))
            ])
    }

    @Test func negativeAccuracyIsOutOfRange() {
        #expect(
            errors("time,latitude,longitude,accuracy\n1,2,3,-4\n") == [
                TrackParseError(
                    format: .csv, position: .line(2), reason: .valueOutOfRange(field: "accuracy", value: -4))
            ])
    }

    @Test func unterminatedQuoteIsReported() {
        #expect(
            errors("time,latitude,longitude,note\n1,2,3,\"open\n") == [
                TrackParseError(format: .csv, position: .line(2), reason: .unterminatedQuote)
            ])
    }

    @Test func emptyAndBlankInputsAreEmpty() {
        let empty = TrackParseError(format: nil, position: .input, reason: .emptyInput, isFatal: true)
        #expect(errors("") == [empty])
        #expect(errors(" \n\r\n\t") == [empty])
        #expect(
            errors("# only a comment\n", format: .csv) == [
                TrackParseError(format: .csv, position: .input, reason: .emptyInput, isFatal: true)
            ])
    }

    @Test func streamsALargeFileAcrossChunkBoundaries() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geoformats-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        var text = "time,latitude,longitude,accuracy\n"
        let n = 60_000
        for i in 0..<n {
            text += "2015-06-02T02:08:00.\(i % 10)Z,\(Double(i % 900) / 10),\(Double(i % 3600) / 10 - 180),\(i % 50)\n"
        }
        text += "2015-06-02T02:08:00Z,1,1,oops" // a bad last line without a newline
        try text.write(to: url, atomically: true, encoding: .utf8)
        var count = 0
        var last: TrackPoint?
        var errs: [TrackParseError] = []
        var iterator = try TrackReader(contentsOf: url).makeIterator()
        while let element = iterator.next() {
            switch element {
            case .success(let p):
                count += 1
                last = p
            case .failure(let e): errs.append(e)
            }
        }
        #expect(count == n)
        #expect(iterator.bytesRead == text.utf8.count)
        #expect(last?.coordinate.latitude == Double((n - 1) % 900) / 10)
        #expect(
            errs == [
                TrackParseError(
                    format: .csv, position: .line(n + 2, column: 26),
                    reason: .invalidNumber(field: "accuracy", text: "oops"))
            ])
    }

    @Test func missingFileIsUnreadable() {
        #expect {
            _ = try TrackReader(path: "/nonexistent/track.csv")
        } throws: { error in
            guard let e = error as? TrackParseError, case .unreadable(let why) = e.reason else { return false }
            return why.contains("/nonexistent/track.csv") && e.position == .input
        }
    }

    @Test func lineLongerThanTheLimitIsSkippedWithAnError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geoformats-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = Array("time,latitude,longitude\n1,2,3\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: TrackReader.maximumLineLength + 5)
        bytes += Array("\n4,5,6\n".utf8)
        try Data(bytes).write(to: url)
        let all = Array(try TrackReader(contentsOf: url))
        #expect(all.count == 3)
        #expect((try? all[0].get())?.time.timeIntervalSince1970 == 1)
        #expect(all[1] == .failure(TrackParseError(format: .csv, position: .line(3), reason: .lineTooLong)))
        #expect((try? all[2].get())?.time.timeIntervalSince1970 == 4)
    }
}
