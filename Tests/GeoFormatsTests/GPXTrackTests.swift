import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("GPX tracks")
struct GPXTrackTests {
    @Test func readsTrackPointsWithElevationAccuracySpeedAndCourse() throws {
        let reader = try TrackReader(contentsOf: try fixture("shanghai.gpx"))
        #expect(reader.format == .gpx)
        let pts = try reader.readAll()
        #expect(pts.count == 3) // the <wpt> is not part of the track
        #expect(pts[0].time == date("2015-06-02T02:08:00Z"))
        #expect(pts[0].coordinate == Coordinate(uncheckedLatitude: 31.259394, longitude: 121.499781))
        #expect(pts[0].elevation == 12.5)
        #expect(pts[0].horizontalAccuracy == 6) // hdop 1.2 × 5 m
        #expect(pts[1].horizontalAccuracy == 4) // <hacc> wins
        #expect(pts[1].speed == 2.5 && pts[1].course == 180)
        #expect(pts[2].time == date("2015-06-02T02:08:20Z")) // CDATA
        #expect(pts[2].elevation == nil && pts[2].horizontalAccuracy == nil)
    }

    @Test func readsRoutePointsAndSelfClosingElementsAndEntities() throws {
        let text = """
            <gpx><rte><rtept lat="1" lon="2"><time>1970-01-01T00:00:10Z</time><name>a &lt;b&gt; &#x41;</name><foo/></rtept></rte></gpx>
            """
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.count == 1 && pts[0].time.timeIntervalSince1970 == 10)
    }

    // Malformed inputs.

    @Test func pointWithoutLatitudeIsReportedAndTheRestIsRead() {
        let text = """
            <gpx>
             <trk><trkseg>
              <trkpt lon="2"><time>2015-06-02T02:08:00Z</time></trkpt>
              <trkpt lat="1" lon="2"><time>2015-06-02T02:08:01Z</time></trkpt>
            </trkseg></trk></gpx>
            """
        #expect(
            errors(text) == [
                TrackParseError(format: .gpx, position: .line(3, column: 3), reason: .missingAttribute("lat"))
            ])
        #expect(points(text).count == 1)
    }

    @Test func badTimeIsReported() {
        let text = "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>noon</time></trkpt></trkseg></trk></gpx>"
        #expect(
            errors(text) == [
                TrackParseError(format: .gpx, position: .line(1, column: 19), reason: .invalidTime("noon"))
            ])
    }

    @Test func missingTimeIsReported() {
        let text = "<gpx><trkpt lat=\"1\" lon=\"2\"><ele>3</ele></trkpt></gpx>"
        #expect(
            errors(text) == [
                TrackParseError(format: .gpx, position: .line(1, column: 6), reason: .missingValue("time"))
            ])
    }

    @Test func mismatchedTagIsFatalWithPosition() {
        let text = "<gpx>\n<trk>\n</trkseg>\n</gpx>"
        #expect(
            errors(text) == [
                TrackParseError(
                    format: .gpx, position: .line(3, column: 9),
                    reason: .malformedXML("</trkseg> does not close <trk>"), isFatal: true)
            ])
    }

    @Test func truncatedDocumentIsFatal() {
        let text =
            "<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2015-06-02T02:08:00Z</time></trkpt><trkpt lat=\"1"
        let all = elements(text)
        #expect(all.count == 2)
        #expect((try? all[0].get()) != nil)
        guard case .failure(let e) = all[1] else {
            Issue.record("expected an error")
            return
        }
        #expect(e.isFatal && e.reason == .malformedXML("end of input in an attribute value"))
    }

    @Test func otherRootElementIsNotGPX() {
        #expect(
            errors("<?xml version=\"1.0\"?>\n<kml><Placemark/></kml>") == [
                TrackParseError(
                    format: .gpx, position: .line(2, column: 1), reason: .notGPX(root: "kml"), isFatal: true)
            ])
    }

    @Test func latitudeOutOfRangeIsReported() {
        let text = "<gpx><trkpt lat=\"91\" lon=\"2\"><time>2015-06-02T02:08:00Z</time></trkpt></gpx>"
        #expect(
            errors(text) == [
                TrackParseError(
                    format: .gpx, position: .line(1, column: 6), reason: .invalidCoordinate(.latitudeOutOfRange(91)))
            ])
    }

    @Test func streamsAFileLargerThanOneChunk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geoformats-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: url) }
        var text = "<gpx><trk><trkseg>\n"
        let n = 12_000
        for i in 0..<n {
            text +=
                "<trkpt lat=\"\(Double(i % 900) / 10)\" lon=\"1\"><time>\(Timestamp.format(Date(timeIntervalSince1970: Double(i))))</time><!-- padding padding padding padding --></trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        #expect(text.utf8.count > ByteSource.chunkSize)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let pts = try TrackReader(contentsOf: url).readAll()
        #expect(pts.count == n)
        #expect(pts.last?.time.timeIntervalSince1970 == Double(n - 1))
        #expect(pts.last?.coordinate.latitude == Double((n - 1) % 900) / 10)
    }
}
