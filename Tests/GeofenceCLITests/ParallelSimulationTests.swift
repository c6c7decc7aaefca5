import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

/// Every core in `simulate`: a fleet on worker threads and a single track with its output on
/// its own thread must give what one thread gives, byte for byte.
@Suite("Parallel simulation")
struct ParallelSimulationTests {
    let regions: [Region] = [
        shanghaiRegion,
        .circle(
            identifier: "pier", center: try! Coordinate(latitude: 31.2405, longitude: 121.5), radius: 150, dwell: 60),
        .circle(
            identifier: "south", center: try! Coordinate(latitude: 31.2395, longitude: 121.4999), radius: 300,
            initialTrigger: [.enter]),
    ]

    /// Vehicle `k`'s walk in and out of the regions: its own phase, start and step, with bad
    /// lines, invalid latitudes, fixes out of order, lying accuracies and shared timestamps.
    func walk(_ k: Int, fixes: Int) -> String {
        var text = "time,latitude,longitude,accuracy\n"
        let start = t0 + Double(k % 4) * 2.5 // several tracks share every timestamp
        let step = Double(2 + k % 3)
        for i in 0..<fixes {
            let phase = ((i + 37 * k) / 80) % 4
            let lat = phase == 1 ? 31.240394 : phase == 3 ? 31.2395 : 31.259394
            let lon = 121.499781 + Double((i + k) % 11) * 2e-5
            let accuracy = (i + k) % 17 == 0 ? 400 : 5 + k % 9
            text += "\(iso(start + Double(i) * step)),\(lat + Double(i % 7) * 1e-5),\(lon),\(accuracy)\n"
            if (i + 3 * k) % 501 == 17 { text += "\(iso(start + Double(i) * step + 1)),north,121.5,10\n" }
            if (i + k) % 733 == 100 { text += "\(iso(start + Double(i) * step + 1)),95,121.5,10\n" }
            if (i + k) % 977 == 500 { text += "\(iso(start + Double(i) * step - 90)),31.25,121.5,10\n" }
        }
        return text
    }

    func run(
        _ paths: [String], threads: Int, writer: some EventWriter = JSONLinesEventWriter(),
        subjects: [String]? = nil
    ) throws -> (text: String, summary: SimulationSummary?, error: String?, engine: Engine) {
        var sim = try Simulation(regions: regions, policy: .precise)
        sim.readsAhead = true
        sim.workerThreads = threads
        let inputs = try paths.enumerated().map { k, path in
            TrackInput(
                subject: subjects?[k] ?? (path as NSString).lastPathComponent, name: path,
                source: try InputFiles.openTrack(path: path).source)
        }
        var out = ""
        do {
            let summary = try sim.run(tracks: inputs, writer: writer, to: &out)
            return (out, summary, nil, sim.engine)
        } catch {
            return (out, nil, "\(error)", sim.engine)
        }
    }

    @Test("a fleet on 1, 2 and 3 threads: the same output, summary, rejections and subject states")
    func fleetIdentical() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var paths: [String] = []
        for k in 0..<9 { paths.append(try write(walk(k, fixes: 900 + 350 * k), to: "v\(k).csv", in: dir)) }
        paths.append(try write("time,latitude,longitude,accuracy\n", to: "empty.csv", in: dir))
        paths.append(try write("time,latitude,longitude\nbad\nworse\n", to: "junk.csv", in: dir))
        var probe = try Simulation(regions: regions, policy: .precise)
        probe.workerThreads = 2
        let fleet = paths.map { TrackInput(subject: $0, name: $0, source: ArrayTrackSource([])) }
        #expect(probe.canRunInParallel(fleet))
        probe.workerThreads = 1
        #expect(!probe.canRunInParallel(fleet))
        let one = try run(paths, threads: 1)
        #expect(one.error == nil)
        #expect(try parseLines(one.text).count > 200)
        let s = try #require(one.summary)
        #expect(s.fixesRejected > 20)
        for threads in [2, 3] {
            let many = try run(paths, threads: threads)
            #expect(many.text == one.text)
            let r = try #require(many.summary)
            #expect(r.report(wallSeconds: nil) == s.report(wallSeconds: nil))
            #expect(r.firstRejections == s.firstRejections)
            #expect(many.engine.subjects == one.engine.subjects)
            for subject in one.engine.subjects {
                #expect(many.engine.lastFix(of: subject) == one.engine.lastFix(of: subject))
                for region in regions {
                    #expect(
                        many.engine.state(of: subject, in: region.identifier)
                            == one.engine.state(of: subject, in: region.identifier))
                }
            }
        }
        // The table prints boundary distances: computed alike.
        let table1 = try run(paths, threads: 1, writer: TableEventWriter(timeZone: utc))
        let table2 = try run(paths, threads: 2, writer: TableEventWriter(timeZone: utc))
        #expect(table2.text == table1.text)
    }

    @Test("a fleet through a writer with state (geojson) and through emit: the same events and distances")
    func fleetWithoutEventText() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var paths: [String] = []
        for k in 0..<5 { paths.append(try write(walk(k, fixes: 1_200 + 300 * k), to: "v\(k).csv", in: dir)) }
        #expect(!(GeoJSONEventWriter() is any IndependentEventText))
        let one = try run(paths, threads: 1, writer: GeoJSONEventWriter())
        let two = try run(paths, threads: 2, writer: GeoJSONEventWriter())
        #expect(one.text.contains("boundaryDistanceMeters"))
        #expect(two.text == one.text)
        func emitted(threads: Int) throws -> [ReportedEvent] {
            var sim = try Simulation(regions: regions, policy: .precise)
            sim.workerThreads = threads
            let inputs = try paths.map {
                TrackInput(subject: $0, name: $0, source: try InputFiles.openTrack(path: $0).source)
            }
            var events: [ReportedEvent] = []
            _ = try sim.run(tracks: inputs) { events.append($0) }
            return events
        }
        let serial = try emitted(threads: 1)
        #expect(serial.count > 100)
        #expect(serial.allSatisfy { $0.boundaryDistance != nil })
        #expect(try emitted(threads: 3) == serial)
    }

    @Test("held events are written by time, ties in the order held, each once")
    func pendingEventsOrder() {
        var rng = SplitMix64(seed: 3_535)
        var pending = PendingEvents<Int>()
        var reference: [(time: Double, seq: Int)] = []
        var written: [Int] = []
        var summary = SimulationSummary()
        var watermark = 0.0
        for seq in 0..<5_000 {
            // Mostly rising times with ties, sometimes an earlier one (another subject's dwell).
            let time = rng.nextUnit() < 0.05 ? watermark + Double(Int(rng.nextUnit() * 3)) : watermark + Double(seq % 7)
            pending.hold(time: time, kind: .enter, payload: seq)
            reference.append((time, seq))
            if rng.nextUnit() < 0.3 {
                watermark += Double(Int(rng.nextUnit() * 4))
                let released = pending.release(upTo: watermark, summary: &summary) { entries in
                    written.append(contentsOf: entries.map(\.payload))
                }
                #expect(released == reference.filter { $0.time <= watermark }.count)
                reference.removeAll { $0.time <= watermark }
            }
        }
        pending.release(upTo: .infinity, summary: &summary) { written.append(contentsOf: $0.map(\.payload)) }
        #expect(pending.isEmpty)
        #expect(written.count == 5_000 && Set(written).count == 5_000)
        #expect(summary.eventCount == 5_000)
    }

    @Test("event texts are released by time: in one piece when in place, gathered when not, compacted when large")
    func eventTextSink() {
        var out: [String] = []
        let collect = { (s: UnsafeBufferPointer<UInt8>) in out.append(String(decoding: s, as: UTF8.self)) }
        withoutActuallyEscaping(collect) { write in
            var sink = EventTextSink(distances: false, render: { _, _ in }, write: write)
            func batch(_ texts: [(Double, String)]) -> TrackLanes.LaneEvents {
                var events = TrackLanes.LaneEvents()
                for (time, text) in texts {
                    events.text.append(contentsOf: text.utf8)
                    events.marks.append(TrackLanes.TextMark(time: time, kind: .exit, end: events.text.count))
                }
                return events
            }
            var summary = SimulationSummary()
            let first = batch([(1, "a1\n"), (2, "a2\n"), (5, "a5\n")])
            sink.hold(1..<3, of: first) // a2, a5
            sink.hold(0..<1, of: first) // a1: earlier than a5, held after it
            sink.release(upTo: 2, summary: &summary)
            #expect(out == ["a1\na2\n"])
            sink.release(upTo: 4, summary: &summary)
            #expect(out.count == 1)
            let big = String(repeating: "x", count: 1_200_000) + "\n"
            let second = batch([(6, big), (9, "b9\n"), (9, "c9\n")])
            sink.hold(0..<3, of: second)
            sink.release(upTo: 6, summary: &summary) // a5, then the big text: compacted after
            #expect(out.count == 2 && out[1] == "a5\n" + big)
            #expect(sink.bufferedBytes == 6)
            sink.release(upTo: 9, summary: &summary)
            #expect(out.count == 3 && out[2] == "b9\nc9\n")
            #expect(sink.isEmpty)
            #expect(summary.eventsByKind[.exit] == 6)
        }
    }

    @Test("tracks sharing a subject are merged on one thread, as before")
    func sharedSubjectFallsBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try write(walk(1, fixes: 1_500), to: "a.csv", in: dir)
        let b = try write(walk(2, fixes: 1_500), to: "b.csv", in: dir)
        var probe = try Simulation(regions: regions, policy: .precise)
        probe.workerThreads = 2
        let shared = [a, b].map { TrackInput(subject: "same", name: $0, source: ArrayTrackSource([])) }
        #expect(!probe.canRunInParallel(shared))
        let one = try run([a, b], threads: 1, subjects: ["same", "same"])
        let two = try run([a, b], threads: 2, subjects: ["same", "same"])
        #expect(one.engine.subjects == ["same"])
        #expect(two.text == one.text)
        #expect(two.summary?.report(wallSeconds: nil) == one.summary?.report(wallSeconds: nil))
    }

    @Test("a track that breaks off among others: the same events before the same error")
    func fleetFatalError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var gpx = "<gpx><trk><trkseg>\n"
        for i in 0..<2_000 {
            let lat = (i / 150) % 2 == 1 ? 31.240394 : 31.259394
            gpx +=
                "<trkpt lat=\"\(lat)\" lon=\"121.499781\"><time>\(iso(t0 + Double(i) * 5))</time><hacc>10</hacc></trkpt>\n"
        }
        gpx += "<trkpt lat=\"31.2\" lon"
        let paths = [
            try write(walk(3, fixes: 6_000), to: "a.csv", in: dir), try write(gpx, to: "cut.gpx", in: dir),
            try write(walk(4, fixes: 6_000), to: "b.csv", in: dir),
        ]
        let one = try run(paths, threads: 1)
        let two = try run(paths, threads: 2)
        #expect(try parseLines(one.text).count > 10)
        #expect(two.text == one.text)
        #expect(one.error != nil && two.error == one.error)
    }

    @Test("one track with its output on its own thread: the same output, summary and error")
    func singleTrackPipelined() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try write(walk(5, fixes: 12_000), to: "walk.csv", in: dir)
        let one = try run([path], threads: 1)
        let two = try run([path], threads: 2)
        #expect(try parseLines(one.text).count > 200)
        #expect(two.text == one.text)
        #expect(two.summary?.report(wallSeconds: nil) == one.summary?.report(wallSeconds: nil))
        #expect(two.engine.lastFix(of: "walk.csv") == one.engine.lastFix(of: "walk.csv"))
        let cut = try write(walk(6, fixes: 3_000) + "2026-06-11T00:00:00Z,31.2", to: "cut.csv", in: dir)
        let cutOne = try run([cut], threads: 1)
        let cutTwo = try run([cut], threads: 2)
        #expect(cutTwo.text == cutOne.text)
        #expect(cutTwo.error == cutOne.error)
    }

    @Test("the tournament tree picks what a scan for the first minimum picks")
    func tournamentTree() {
        var rng = SplitMix64(seed: 35)
        for count in [1, 2, 3, 7, 64, 200] {
            var values = Array(repeating: Double.infinity, count: count)
            var tree = TournamentTree(count: count, initial: .infinity)
            for _ in 0..<2_000 {
                let i = Int(rng.nextUnit() * Double(count))
                // Few distinct values, so ties are common.
                let v = rng.nextUnit() < 0.1 ? Double.infinity : Double(Int(rng.nextUnit() * 5))
                values[i] = v
                tree[i] = v
                var best = 0
                for k in values.indices where values[k] < values[best] { best = k }
                #expect(tree.winner == best)
                #expect(tree.minimum == values[best])
            }
        }
    }
}
