import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

/// The byte writers (issue 35): `simulate` builds each event's text as bytes straight into
/// its output buffer, and the pipelined single track hands whole chunks of events to its
/// output thread. Both must give exactly the text of the string writers.
@Suite("Byte output")
struct ByteOutputTests {
    /// Identifiers that need every kind of JSON escape, and characters of several UTF-8 lengths.
    let regions: [Region] = [
        .circle(
            identifier: "quote \"1\" back\\slash", center: try! Coordinate(latitude: 31.2405, longitude: 121.5),
            radius: 150, dwell: 60),
        .circle(
            identifier: "line\nbreak\ttab\r\u{1}\u{1F}",
            center: try! Coordinate(latitude: 31.2395, longitude: 121.4999),
            radius: 300, initialTrigger: [.enter]),
        .circle(
            identifier: "café 東京 🚗", center: try! Coordinate(latitude: 31.2400, longitude: 121.5003), radius: 90),
    ]

    /// A walk in and out of the regions, fixes 1.5 s apart (fractional times), with a bad line.
    func walk(fixes: Int) -> String {
        var text = "time,latitude,longitude,accuracy\n"
        for i in 0..<fixes {
            let phase = (i / 60) % 4
            let lat = phase == 1 ? 31.2404 : phase == 3 ? 31.2396 : 31.2590
            text +=
                "\(iso(t0 + Double(i) * 1.5)),\(lat + Double(i % 5) * 1e-5),\(121.5 + Double(i % 7) * 1e-5),\(4 + i % 6)\n"
            if i % 997 == 13 { text += "\(iso(t0 + Double(i) * 1.5 + 0.5)),north,121.5,10\n" }
        }
        return text
    }

    func simulation(threads: Int) throws -> Simulation {
        var sim = try Simulation(regions: regions, policy: .precise)
        sim.readsAhead = true
        sim.workerThreads = threads
        return sim
    }

    func input(_ path: String) throws -> [TrackInput] {
        [TrackInput(subject: "car \"7\"", name: path, source: try InputFiles.openTrack(path: path).source)]
    }

    @Test(
        "events written as bytes into a file are the string writers' text, on one thread and two",
        arguments: [OutputFormat.jsonl, .table, .geojson])
    func bytesMatchStrings(format: OutputFormat) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let track = try write(walk(fixes: 5_000), to: "walk.csv", in: dir)
        var reference = ""
        var sim = try simulation(threads: 1)
        let summary = try sim.run(tracks: try input(track), writer: format.makeWriter(timeZone: utc), to: &reference)
        #expect(summary.eventCount > 50)
        for threads in [1, 2] {
            let path = (dir as NSString).appendingPathComponent("out-\(threads).txt")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            var out = FileDescriptorOutput(fileDescriptor: fd)
            var sim = try simulation(threads: threads)
            let s = try sim.run(tracks: try input(track), writer: format.makeWriter(timeZone: utc), to: &out)
            out.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == reference)
            #expect(s.report(wallSeconds: nil) == summary.report(wallSeconds: nil))
        }
    }

    @Test("a JSON string literal parses back to the string, for every ASCII character and a few others")
    func jsonStrings() throws {
        var samples = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        samples += ["é", "東京", "🚗", "a\"b\\c\n\u{1}é", ""]
        for s in samples {
            let literal = JSONText.string(s)
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(literal)]".utf8)) as? [String]
            #expect(parsed == [s], "\(literal)")
            var bytes: [UInt8] = [1, 2]
            JSONText.appendString(s, to: &bytes)
            #expect(bytes == [1, 2] + Array(literal.utf8))
        }
        // The short escapes where RFC 8259 has them, lowercase hex elsewhere.
        #expect(JSONText.string("\n\r\t\u{8}\u{1F}") == #""\n\r\t\u0008\u001f""#)
    }

    @Test("a timestamp appended as bytes is the string form, for any year and millisecond")
    func timestampBytes() {
        var rng = SplitMix64(seed: 35)
        var times: [Double] = [0, -0.5, 0.9996, 253_402_300_799, 253_402_300_800, -62_135_596_801, 1e12, -1e12]
        for _ in 0..<2_000 {
            times.append(rng.uniform(-4e11, 4e11).rounded(.down) + Double(Int(rng.nextUnit() * 1_000)) / 1_000)
        }
        for t in times {
            var bytes: [UInt8] = [7]
            var fresh = ISO8601Writer()
            bytes.appendLine(room: ISO8601Writer.maximumBytes) { fresh.write(Date(timeIntervalSince1970: t), to: &$0) }
            #expect(bytes == [7] + Array(TimestampFormat.iso8601(secondsSince1970: t).utf8), "\(t)")
        }
    }

    @Test("one writer's times, days apart, back and forth and around midnight, are each the string form")
    func timestampWriterKeepsNoStaleDate() {
        var rng = SplitMix64(seed: 3_535)
        let midnight = 1_781_222_400.0 // 2026-06-12T00:00:00Z
        var times: [Double] = [midnight - 0.0004, midnight - 0.0005, midnight, midnight - 86_400, midnight + 0.001]
        times += [951_782_400, 951_868_799.9996, 951_868_800, -1, -0.0004, 0, -86_400.5, 253_402_300_800, midnight]
        for _ in 0..<3_000 {
            let step = rng.nextUnit() < 0.9 ? rng.uniform(-600, 3_600) : rng.uniform(-4e9, 4e9)
            times.append(times.last! + step)
        }
        var writer = ISO8601Writer()
        for t in times {
            var bytes: [UInt8] = [7]
            bytes.appendLine(room: ISO8601Writer.maximumBytes) { writer.write(Date(timeIntervalSince1970: t), to: &$0) }
            #expect(bytes == [7] + Array(TimestampFormat.iso8601(secondsSince1970: t).utf8), "\(t)")
        }
    }

    @Test("jsonl lines of every kind, initial or not, with identifiers all escapes, parse back whole")
    func jsonlLinesParseBack() throws {
        let fix = LocationFix(
            subject: "s", coordinate: try Coordinate(latitude: -33.8688, longitude: 151.2093), horizontalAccuracy: 5,
            timestamp: Date(timeIntervalSince1970: 1_781_186_952))
        // Every byte that needs escaping, repeated: the line's room is its worst case.
        let worst = String(repeating: "\u{1}\"\\\n", count: 300)
        var writer = JSONLinesEventWriter()
        var bytes: [UInt8] = []
        var expected: [(String, String, String, Bool)] = []
        for kind in TransitionEvent.Kind.allCases {
            for (region, subject) in [("r", "s"), (worst, "car \"7\" 🚗"), ("", worst)] {
                for initial in [false, true] {
                    let e = TransitionEvent(
                        kind: kind, regionID: region, subject: subject, fix: fix,
                        time: Date(timeIntervalSince1970: 1_781_186_952.25),
                        crossedAt: Date(timeIntervalSince1970: -1e11), isInitial: initial)
                    writer.write(ReportedEvent(event: e), into: &bytes)
                    expected.append((kind.rawValue, region, subject, initial))
                }
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.split(separator: "\n")
        #expect(lines.count == expected.count)
        for (line, (kind, region, subject, initial)) in zip(lines, expected) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["event"] as? String == kind)
            #expect(object["region"] as? String == region)
            #expect(object["subject"] as? String == subject)
            #expect(object["time"] as? String == "2026-06-11T14:09:12.250Z")
            #expect(object["crossedAt"] as? String == TimestampFormat.iso8601(secondsSince1970: -1e11))
            #expect(object["latitude"] as? Double == -33.8688 && object["longitude"] as? Double == 151.2093)
            #expect((object["initial"] as? Bool) == (initial ? true : nil))
        }
    }

    @Test("blocks of bytes of any size, large ones written past the buffer, keep their order in the file")
    func byteBlocksKeepOrder() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = (dir as NSString).appendingPathComponent("blocks.txt")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        var out = FileDescriptorOutput(fileDescriptor: fd)
        var expected: [UInt8] = []
        for (i, size) in [10, 70_000, 3, 65_536, 65_535, 1, 200_000, 0, 40_000, 40_000].enumerated() {
            let block = (0..<size).map { UInt8(97 + ($0 + i) % 26) }
            if i % 3 == 2 {
                out.write("text \(i)\n")
                expected += Array("text \(i)\n".utf8)
            }
            block.withUnsafeBufferPointer { out.write(bytes: $0) }
            expected += block
        }
        out.close()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }

    @Test("a chunk is written whole only in time order and up to the watermark; else nothing is written")
    func writeAllInOrder() throws {
        var sim = try simulation(threads: 1)
        let fix = LocationFix(
            subject: "s", coordinate: try Coordinate(latitude: 31.24, longitude: 121.5), horizontalAccuracy: 5,
            timestamp: Date(timeIntervalSinceReferenceDate: 100))
        func event(_ kind: TransitionEvent.Kind, _ t: Double) -> TransitionEvent {
            TransitionEvent(
                kind: kind, regionID: "r", subject: "s", fix: fix, time: Date(timeIntervalSinceReferenceDate: t),
                crossedAt: Date(timeIntervalSinceReferenceDate: t - 1))
        }
        let inOrder = [event(.exit, 10), event(.enter, 10), event(.dwell, 12)]
        var summary = SimulationSummary()
        var written: [ReportedEvent] = []
        #expect(!sim.writeAll(inOrder: inOrder.reversed(), upTo: 20, summary: &summary) { written.append($0) })
        #expect(!sim.writeAll(inOrder: inOrder, upTo: 11, summary: &summary) { written.append($0) })
        #expect(written.isEmpty && summary.eventCount == 0)
        #expect(sim.writeAll(inOrder: inOrder, upTo: 12, summary: &summary) { written.append($0) })
        // What the pending list gives for the same events.
        var pending = inOrder.enumerated().map { (seq: $0.offset, event: $0.element) }
        var viaPending = SimulationSummary()
        var expected: [ReportedEvent] = []
        sim.write(&pending, upTo: 12, summary: &viaPending) { expected.append($0) }
        #expect(written == expected && written.count == 3)
        #expect(summary.eventsByKind == viaPending.eventsByKind)
    }
}
