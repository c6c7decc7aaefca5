import Foundation
import Geodesy
import Testing

@testable import GeoFormats

/// The byte-level GPX reader keeps the XML rules of the document-level one it replaced.
@Suite("GPX edge cases")
struct GPXEdgeCaseTests {
    @Test("names match by local name in any case and namespace, attributes by local name too")
    func namespacesAndCase() throws {
        let text = """
            <g:GPX xmlns:g="http://www.topografix.com/GPX/1/1"><g:TRK><g:TRKSEG>
            <g:TrkPt g:LAT="1.5" LON='2.5'><g:Time>1970-01-01T00:00:10Z</g:Time><g:ELE>7</g:ELE>
            <g:extensions><x:TrackPointExtension><x:Speed>3.5</x:Speed><x:Course>90</x:Course></x:TrackPointExtension></g:extensions>
            </g:TrkPt></g:TRKSEG></g:TRK></g:GPX>
            """
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.count == 1)
        #expect(pts[0].coordinate == Coordinate(uncheckedLatitude: 1.5, longitude: 2.5))
        #expect(pts[0].time.timeIntervalSince1970 == 10)
        #expect(pts[0].elevation == 7 && pts[0].speed == 3.5 && pts[0].course == 90)
    }

    @Test("the first value of a field wins, values are trimmed, entities and CDATA are decoded")
    func firstValueTrimmedAndDecoded() throws {
        let text = """
            <gpx><trkpt lat="&#x31;" lon="2"><time>
              1970-01-01T00:00:20Z
            </time><time>1970-01-01T00:00:30Z</time><ele><![CDATA[ 12.5 ]]></ele><hdop>2</hdop>
            <!-- a <comment> with markup --><?pi stuff?></trkpt></gpx>
            """
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.count == 1)
        #expect(pts[0].coordinate.latitude == 1)
        #expect(pts[0].time.timeIntervalSince1970 == 20)
        #expect(pts[0].elevation == 12.5)
        #expect(pts[0].horizontalAccuracy == 10) // hdop 2 × 5 m
    }

    @Test("accuracy: hacc, then horizontalAccuracy, then accuracy, then hdop")
    func accuracyPrecedence() throws {
        func accuracy(_ children: String) throws -> Double? {
            let text = "<gpx><trkpt lat=\"1\" lon=\"2\"><time>1970-01-01T00:00:00Z</time>\(children)</trkpt></gpx>"
            return try TrackReader(string: text).readAll().first?.horizontalAccuracy
        }
        #expect(
            try accuracy("<hdop>1</hdop><accuracy>3</accuracy><horizontalAccuracy>4</horizontalAccuracy><hacc>6</hacc>")
                == 6)
        #expect(try accuracy("<hdop>1</hdop><accuracy>3</accuracy><horizontalAccuracy>4</horizontalAccuracy>") == 4)
        #expect(try accuracy("<hdop>1</hdop><accuracy>3</accuracy>") == 3)
        #expect(try accuracy("<hdop>1</hdop>") == 5)
        #expect(try accuracy("") == nil)
    }

    @Test("a point nested in a point is part of the outer one; waypoints are skipped")
    func nestingAndWaypoints() throws {
        let text = """
            <gpx><wpt lat="5" lon="5"><time>1970-01-01T00:00:01Z</time></wpt>
            <trkpt lat="1" lon="2"><trkpt lat="3" lon="4"/><time>1970-01-01T00:00:02Z</time></trkpt></gpx>
            """
        let pts = try TrackReader(string: text).readAll()
        #expect(pts.count == 1)
        #expect(pts[0].coordinate.latitude == 1 && pts[0].time.timeIntervalSince1970 == 2)
    }

    @Test("a bad number names its field and text; an empty lat is a missing attribute")
    func badNumbers() {
        let speed =
            "<gpx><trkpt lat=\"1\" lon=\"2\"><time>1970-01-01T00:00:00Z</time><speed> fast </speed></trkpt></gpx>"
        #expect(
            errors(speed) == [
                TrackParseError(
                    format: .gpx, position: .line(1, column: 6),
                    reason: .invalidNumber(field: "speed", text: "fast"))
            ])
        let lat = "<gpx><trkpt lat=\"\" lon=\"2\"><time>1970-01-01T00:00:00Z</time></trkpt></gpx>"
        #expect(
            errors(lat) == [
                TrackParseError(format: .gpx, position: .line(1, column: 6), reason: .missingAttribute("lat"))
            ])
        let lon = "<gpx><trkpt lat=\"1\" lon=\"east\"><time>1970-01-01T00:00:00Z</time></trkpt></gpx>"
        #expect(
            errors(lon) == [
                TrackParseError(
                    format: .gpx, position: .line(1, column: 6),
                    reason: .invalidNumber(field: "longitude", text: "east"))
            ])
    }

    @Test("XML errors are fatal and say where and what")
    func fatalErrors() {
        func fatal(_ text: String) -> TrackParseError? { errors(text).last }
        #expect(fatal("<gpx></gpx><gpx/>")?.reason == .malformedXML("a second root element"))
        #expect(fatal("<gpx>x</gpx> y")?.reason == .malformedXML("text after the root element"))
        #expect(
            fatal("<gpx><trkpt lat=\"1\" lon=\"2\"><time>&nbsp;</time></trkpt></gpx>")?.reason
                == .malformedXML("unknown entity &nbsp;"))
        #expect(fatal("<gpx><trk lat=1></trk></gpx>")?.reason == .malformedXML("attribute value not quoted in <trk>"))
        #expect(fatal("<gpx></trk>")?.reason == .malformedXML("</trk> does not close <gpx>"))
        let open = fatal("<gpx><trk>\n<trkseg>")
        #expect(
            open
                == TrackParseError(
                    format: .gpx, position: .line(2, column: 8),
                    reason: .malformedXML("end of input inside <trkseg>"), isFatal: true))
    }

    @Test("points across many chunk refills keep their values and lines")
    func manyPointsOverChunks() throws {
        var text = "<gpx><trk><trkseg>\n"
        let n = 30_000
        for i in 0..<n {
            text +=
                "<trkpt lat=\"\(Double(i % 900) / 10)\" lon=\"\(Double(i % 1800) / 10)\"><ele>\(i)</ele><time>\(Timestamp.format(Date(timeIntervalSince1970: Double(i))))</time></trkpt>\n"
        }
        text += "<trkpt lat=\"1\"><time>1970-01-01T00:00:00Z</time></trkpt>\n</trkseg></trk></gpx>\n"
        #expect(text.utf8.count > ByteSource.chunkSize)
        let all = elements(text)
        let pts = all.compactMap { try? $0.get() }
        #expect(pts.count == n)
        #expect(pts.map(\.elevation) == (0..<n).map { Double($0) })
        #expect(pts[n - 1].coordinate.longitude == Double((n - 1) % 1800) / 10)
        #expect(
            errors(text) == [
                TrackParseError(format: .gpx, position: .line(n + 2, column: 1), reason: .missingAttribute("lon"))
            ])
    }
}
