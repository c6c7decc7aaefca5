import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

/// Every input format through the command's own reading path (format detected from
/// content, not the name), and the ways an input can be wrong.
@Suite("Input formats")
struct InputFormatTests {
    /// Runs the file at `path` against the Shanghai region (precise profile).
    func run(_ path: String) throws -> (events: [[String: Any]], summary: SimulationSummary) {
        let opened = try InputFiles.openTrack(path: path)
        let (text, summary) = try simulate(
            [shanghaiRegion], [TrackInput(subject: "p", name: path, source: opened.source)])
        return (try parseLines(text), summary)
    }

    func nmeaChecksum(_ body: String) -> String {
        let c = body.utf8.reduce(UInt8(0), ^)
        let h = String(c, radix: 16, uppercase: true)
        return "$\(body)*\(h.count == 1 ? "0" + h : h)"
    }

    @Test("CSV track with ISO 8601 times")
    func csv() throws {
        let dir = try temporaryDirectory()
        let r = try run(try write(shanghaiCSV(), to: "track.txt", in: dir))
        #expect(r.events.map { $0["event"] as? String } == ["enter"])
        #expect(r.summary.fixesRead == 24)
    }

    @Test("CSV track with Unix-second times")
    func csvUnix() throws {
        let dir = try temporaryDirectory()
        let text =
            "time,latitude,longitude,accuracy\n"
            + shanghaiFixes().map { "\($0.t),\($0.lat),121.499781,10" }.joined(separator: "\n")
        let r = try run(try write(text, to: "unix.csv", in: dir))
        #expect(r.events.count == 1)
    }

    @Test("GPX 1.1 track")
    func gpx() throws {
        let dir = try temporaryDirectory()
        let pts = shanghaiFixes().map {
            "<trkpt lat=\"\($0.lat)\" lon=\"121.499781\"><time>\(iso($0.t))</time><hdop>2</hdop></trkpt>"
        }.joined(separator: "\n")
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            \(pts)
            </trkseg></trk></gpx>
            """
        let r = try run(try write(text, to: "track.data", in: dir))
        #expect(r.events.map { $0["event"] as? String } == ["enter"])
        #expect(r.summary.fixesRead == 24)
    }

    @Test("NMEA 0183 track (RMC sentences with checksums)")
    func nmea() throws {
        let dir = try temporaryDirectory()
        let lines = shanghaiFixes().map { f -> String in
            let c = TimestampFormat.civil(Int(f.t))
            let hms = String(format: "%02d%02d%02d.00", c.hour, c.minute, c.second)
            let date = String(format: "%02d%02d%02d", c.day, c.month, c.year % 100)
            let minutes = (f.lat - 31) * 60
            let lat = String(format: "31%07.4f", minutes)
            let lon = String(format: "121%07.4f", (121.499781 - 121) * 60)
            return nmeaChecksum("GPRMC,\(hms),A,\(lat),N,\(lon),E,0.0,0.0,\(date),,,A")
        }
        let r = try run(try write(lines.joined(separator: "\r\n") + "\r\n", to: "track.log", in: dir))
        #expect(r.events.map { $0["event"] as? String } == ["enter"])
        #expect(r.summary.fixesRead == 24)
    }

    @Test("GeoJSON track: Point features with a time property")
    func geojsonPoints() throws {
        let dir = try temporaryDirectory()
        let features = shanghaiFixes().map {
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[121.499781,\($0.lat)]},\"properties\":{\"time\":\"\(iso($0.t))\",\"accuracy\":10}}"
        }.joined(separator: ",\n")
        let r = try run(try write("{\"type\":\"FeatureCollection\",\"features\":[\(features)]}", to: "t.json", in: dir))
        #expect(r.events.map { $0["event"] as? String } == ["enter"])
    }

    @Test("GeoJSON track: a LineString with times")
    func geojsonLine() throws {
        let dir = try temporaryDirectory()
        let coords = shanghaiFixes().map { "[121.499781,\($0.lat)]" }.joined(separator: ",")
        let times = shanghaiFixes().map { "\"\(iso($0.t))\"" }.joined(separator: ",")
        let text =
            "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[\(coords)]},\"properties\":{\"times\":[\(times)]}}"
        let r = try run(try write(text, to: "line.geojson", in: dir))
        #expect(r.events.count == 1)
    }

    @Test("a file in no track format is refused with a clear error, not read as nothing")
    func wrongFormat() throws {
        let dir = try temporaryDirectory()
        let path = try write("Dear diary,\ntoday I walked to the Bund.\n", to: "diary.csv", in: dir)
        #expect {
            _ = try run(path)
        } throws: { error in
            guard let e = error as? InputError, case .malformed(let p, _, let reason) = e else { return false }
            return p == path && reason.contains("header")
        }
    }

    @Test("a missing file gives cannotOpen naming it")
    func missingFile() throws {
        let path = "/nonexistent/dir/track.csv"
        #expect(throws: InputError.cannotOpen(path: path, reason: "No such file or directory")) {
            _ = try InputFiles.openTrack(path: path)
        }
        #expect(throws: InputError.self) { _ = try InputFiles.loadRegions(path: path) }
    }

    @Test("an unreadable path (a directory) gives cannotOpen")
    func unreadable() throws {
        let dir = try temporaryDirectory()
        #expect(throws: InputError.cannotOpen(path: dir, reason: "is a directory")) {
            _ = try InputFiles.openTrack(path: dir)
        }
    }

    @Test("an empty track file is an error naming the file")
    func emptyTrack() throws {
        let dir = try temporaryDirectory()
        let path = try write("", to: "empty.csv", in: dir)
        #expect {
            _ = try run(path)
        } throws: { error in
            guard let e = error as? InputError, case .malformed(let p, _, let reason) = e else { return false }
            return p == path && reason.contains("empty")
        }
    }

    @Test("a CSV with only its header is a track with no fixes and no events")
    func headerOnly() throws {
        let dir = try temporaryDirectory()
        let r = try run(try write("time,latitude,longitude\n", to: "h.csv", in: dir))
        #expect(r.events.isEmpty)
        #expect(r.summary.fixesRead == 0)
    }

    @Test("bad lines among good ones are reported with their line numbers and the good ones are used")
    func badLines() throws {
        let dir = try temporaryDirectory()
        var lines = shanghaiCSV().split(separator: "\n").map(String.init)
        lines.insert("2026-06-11T02:00:07Z,not-a-number,121.499781,10", at: 3) // line 4
        lines.insert("2026-06-11T02:00:12Z,31.259394", at: 6) // line 7
        lines.insert("yesterday,31.259394,121.499781,10", at: 9) // line 10
        let r = try run(try write(lines.joined(separator: "\n") + "\n", to: "mixed.csv", in: dir))
        #expect(r.events.map { $0["event"] as? String } == ["enter"])
        #expect(r.summary.fixesRead == 24)
        #expect(r.summary.fixesRejected == 3)
        #expect(
            r.summary.firstRejections.map(\.position).map {
                $0.hasPrefix("line 4") || $0.hasPrefix("line 7") || $0.hasPrefix("line 10")
            } == [true, true, true])
        #expect(
            r.summary.firstRejections.map { $0.position.split(separator: ",")[0] } == ["line 4", "line 7", "line 10"])
    }

    @Test("regions: circles, polygons with holes, flags, dwell and metadata are read")
    func regions() throws {
        let dir = try temporaryDirectory()
        let text = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.24]},
              "properties":{"id":"c","radius":150,"notifyOnExit":false,"dwell":60,"clearance_m":3.2,"label":"10′6″"}},
             {"type":"Feature","geometry":{"type":"Polygon","coordinates":[
                [[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]],
                [[0.004,0.004],[0.006,0.004],[0.006,0.006],[0.004,0.006],[0.004,0.004]]]},
              "properties":{"id":"p"}}]}
            """
        let regions = try InputFiles.loadRegions(path: try write(text, to: "r.geojson", in: dir))
        #expect(regions.map(\.identifier) == ["c", "p"])
        #expect(regions[0].notifyOnExit == false && regions[0].notifyOnEntry)
        #expect(regions[0].dwell == 60)
        #expect(regions[0].metadata["clearance_m"] == "3.2")
        #expect(regions[0].metadata["label"] == "10′6″")
        guard case .polygon(let p) = regions[1].shape else {
            Issue.record("not a polygon")
            return
        }
        #expect(p.holes.count == 1)
    }

    @Test("a region without a radius is refused, naming the feature")
    func badRegion() throws {
        let dir = try temporaryDirectory()
        let text = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.24]},"properties":{"id":"a","radius":10}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[121.5,31.24]},"properties":{"id":"b"}}]}
            """
        let path = try write(text, to: "r.geojson", in: dir)
        #expect {
            _ = try InputFiles.loadRegions(path: path)
        } throws: { error in
            guard let e = error as? InputError, case .malformed(_, let position, let reason) = e else { return false }
            return position == "feature 1" && reason.contains("radius")
        }
    }
}
