import Foundation
import Geodesy
import Testing

@testable import GeofenceCLI
@testable import Geofencing

/// A single track goes to the engine in chunks; everything a user sees must be what the
/// fix-by-fix path gives.
@Suite("Single-track chunks")
struct SingleTrackBatchTests {
    /// A walk in and out of three regions, with a bad line, an invalid latitude and a fix
    /// out of order near chunk boundaries, and a truncated last line when `cut`.
    func track(fixes: Int, cut: Bool = false) -> String {
        var text = "time,latitude,longitude,accuracy\n"
        var i = 0
        while i < fixes {
            let phase = (i / 90) % 4
            let lat = phase == 1 ? 31.240394 : phase == 3 ? 31.2395 : 31.259394
            let lon = 121.499781 + Double(i % 11) * 2e-5
            let accuracy = i % 13 == 0 ? 400 : 8
            text += "\(iso(t0 + Double(i) * 3)),\(lat + Double(i % 7) * 1e-5),\(lon),\(accuracy)\n"
            if i % 1_024 == 1_023 { text += "\(iso(t0 + Double(i) * 3 + 1)),north,121.5,10\n" }
            if i % 1_500 == 700 { text += "\(iso(t0 + Double(i) * 3 + 1)),95,121.5,10\n" }
            if i % 2_048 == 1_024 { text += "\(iso(t0 + Double(i) * 3 - 60)),31.25,121.5,10\n" }
            if i == 5_000 { text += "oops\n" }
            i += 1
        }
        if cut { text += "\(iso(t0 + Double(fixes) * 3)),31.2" }
        return text
    }

    let regions: [Region] = [
        shanghaiRegion,
        .circle(
            identifier: "pier", center: try! Coordinate(latitude: 31.2405, longitude: 121.5), radius: 150, dwell: 60),
        .circle(
            identifier: "south", center: try! Coordinate(latitude: 31.2395, longitude: 121.4999), radius: 300,
            initialTrigger: [.enter]),
    ]

    func run<W: EventWriter>(
        _ path: String, batches: Bool, readsAhead: Bool, writer: W,
        policy: HysteresisPolicy
    ) throws -> (String, SimulationSummary?, String?) {
        var sim = try Simulation(regions: regions, policy: policy)
        sim.batchesSingleTrack = batches
        sim.readsAhead = readsAhead
        let input = TrackInput(subject: "walker", name: path, source: try InputFiles.openTrack(path: path).source)
        var out = ""
        do {
            let summary = try sim.run(tracks: [input], writer: writer, to: &out)
            return (out, summary, nil)
        } catch {
            return (out, nil, "\(error)")
        }
    }

    @Test("chunks give byte-identical output, summary and rejections", arguments: [false, true])
    func identical(readsAhead: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try write(track(fixes: 7_000), to: "walk.csv", in: dir)
        for policy in [HysteresisPolicy.precise, .coreLocation] {
            let (a, sa, ea) = try run(
                path, batches: false, readsAhead: readsAhead, writer: JSONLinesEventWriter(), policy: policy)
            let (b, sb, eb) = try run(
                path, batches: true, readsAhead: readsAhead, writer: JSONLinesEventWriter(), policy: policy)
            #expect(ea == nil && eb == nil)
            #expect(try parseLines(a).count > 100)
            #expect(b == a)
            let s = try #require(sa)
            let r = try #require(sb)
            #expect(r.fixesRead == s.fixesRead && r.fixesRejected == s.fixesRejected)
            #expect(s.fixesRejected >= 12)
            #expect(r.firstRejections == s.firstRejections)
            #expect(r.eventsByKind == s.eventsByKind)
            #expect(r.eventsByKind[.dwell, default: 0] > 0)
            // The table prints distances: computed on both paths alike.
            let (ta, _, _) = try run(
                path, batches: false, readsAhead: readsAhead, writer: TableEventWriter(timeZone: utc), policy: policy)
            let (tb, _, _) = try run(
                path, batches: true, readsAhead: readsAhead, writer: TableEventWriter(timeZone: utc), policy: policy)
            #expect(tb == ta)
            #expect(ta.contains(" m"))
        }
    }

    @Test("measured ahead on the reading thread, in a dense town: byte-identical output and summary")
    func measuredAhead() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try write(track(fixes: 7_000), to: "walk.csv", in: dir)
        // 300 circles of 20-400 m over the walk's 2.5 km, a dozen over most of its fixes.
        var rng = SplitMix64(seed: 35)
        let town: [Region] = (0..<300).map { i in
            .circle(
                identifier: "t\(i)",
                center: Coordinate(
                    uncheckedLatitude: 31.2385 + rng.nextUnit() * 0.023, longitude: 121.4975 + rng.nextUnit() * 0.005),
                radius: 20 + rng.nextUnit() * 380, dwell: i % 4 == 0 ? 30 : nil)
        }
        for policy in [HysteresisPolicy.precise, .coreLocation] {
            var outputs: [String] = []
            var summaries: [SimulationSummary] = []
            for measures in [false, true] {
                var sim = try Simulation(regions: regions + town, policy: policy)
                sim.readsAhead = true
                sim.measuresAhead = measures
                let input = TrackInput(
                    subject: "walker", name: path, source: try InputFiles.openTrack(path: path).source)
                var out = ""
                summaries.append(try sim.run(tracks: [input], writer: JSONLinesEventWriter(), to: &out))
                outputs.append(out)
                #expect(measures == (sim.engine.measuredFixesTaken > 3_000))
            }
            #expect(try parseLines(outputs[0]).count > 1_000)
            #expect(outputs[1] == outputs[0])
            #expect(summaries[1].eventsByKind == summaries[0].eventsByKind)
            #expect(summaries[1].firstRejections == summaries[0].firstRejections)
        }
    }

    @Test("a track that breaks off: the same events before the same error", arguments: [false, true])
    func truncated(readsAhead: Bool) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var gpx = "<gpx><trk><trkseg>\n"
        for i in 0..<3_000 {
            let lat = (i / 150) % 2 == 1 ? 31.240394 : 31.259394
            gpx +=
                "<trkpt lat=\"\(lat)\" lon=\"121.499781\"><time>\(iso(t0 + Double(i) * 5))</time><hacc>10</hacc></trkpt>\n"
        }
        gpx += "<trkpt lat=\"31.2\" lon"
        let path = try write(gpx, to: "cut.gpx", in: dir)
        let (a, _, ea) = try run(
            path, batches: false, readsAhead: readsAhead, writer: JSONLinesEventWriter(), policy: .precise)
        let (b, _, eb) = try run(
            path, batches: true, readsAhead: readsAhead, writer: JSONLinesEventWriter(), policy: .precise)
        #expect(try parseLines(a).count > 10)
        #expect(b == a)
        #expect(ea != nil && eb == ea)
    }

    @Test("jsonl skips the boundary distance; the table and GeoJSON writers use it")
    func distanceOnlyWhenUsed() {
        #expect(JSONLinesEventWriter.usesBoundaryDistance == false)
        #expect(TableEventWriter.usesBoundaryDistance == true)
        #expect(GeoJSONEventWriter.usesBoundaryDistance == true)
    }
}
