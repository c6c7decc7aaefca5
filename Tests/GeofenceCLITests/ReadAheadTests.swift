import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

/// A source that yields `count` positions and then throws `ThrowingSource.Failure`.
struct ThrowingSource: TrackSource {
    struct Failure: Error, Equatable { var after: Int }
    var count: Int
    var index = 0

    mutating func next() throws -> TrackRecord? {
        guard index < count else { throw Failure(after: count) }
        index += 1
        return .position(
            TrackPosition(
                index: index, latitude: 31, longitude: 121,
                time: Date(timeIntervalSince1970: Double(index))))
    }
}

@Suite("Read-ahead track source")
struct ReadAheadTrackSourceTests {
    func drain(_ source: inout some TrackSource) throws -> [TrackRecord] {
        var out: [TrackRecord] = []
        while let r = try source.next() { out.append(r) }
        return out
    }

    @Test("yields the wrapped source's records in order, for batch sizes that do and do not divide the count")
    func sameRecords() throws {
        var records = positions(shanghaiFixes()).map(TrackRecord.position)
        records.insert(.rejected(position: "line 3", reason: "bad"), at: 3)
        for size in [1, 3, 5, 25, 4_096] {
            var source = ReadAheadTrackSource(ArrayTrackSource(records), batchSize: size)
            #expect(try drain(&source) == records)
            #expect(try source.next() == nil) // stays at the end
        }
    }

    @Test("an error ending the wrapped source comes after all the records before it")
    func errorAfterRecords() throws {
        let source = ReadAheadTrackSource(ThrowingSource(count: 10), batchSize: 4)
        var read = 0
        var thrown: (any Error)?
        do {
            while try source.next() != nil { read += 1 }
        } catch {
            thrown = error
        }
        #expect(read == 10)
        #expect(thrown as? ThrowingSource.Failure == ThrowingSource.Failure(after: 10))
        #expect(throws: ThrowingSource.Failure(after: 10)) { try source.next() } // and again
    }

    @Test("releasing it early stops the reading thread (the test would hang otherwise)")
    func releaseEarly() throws {
        for _ in 0..<20 {
            let source = ReadAheadTrackSource(ThrowingSource(count: 1_000_000), batchSize: 7)
            #expect(try source.next() != nil)
        }
    }
}

@Suite("Read-ahead simulation")
struct ReadAheadSimulationTests {
    /// A CSV walk that goes in and out of the Shanghai region every 150 fixes, with bad lines
    /// on both sides of the 4,096-record batch boundaries.
    func walkCSV(fixes: Int, start: Double = t0, badEvery: Int = 997) -> String {
        var text = "time,latitude,longitude,accuracy\n"
        for i in 0..<fixes {
            let inside = (i / 150) % 2 == 1
            let lat = inside ? 31.240394 + Double(i % 7) * 1e-5 : 31.259394 - Double(i % 5) * 1e-5
            text += "\(iso(start + Double(i) * 5)),\(lat),121.499781,10\n"
            if i % badEvery == 17 { text += "\(iso(start + Double(i) * 5 + 1)),north,121.5,10\n" }
            if i % (badEvery * 3) == 500 { text += "oops\n" }
        }
        return text
    }

    func run(_ paths: [String], readsAhead: Bool) throws -> (String, SimulationSummary?, String?) {
        var sim = try Simulation(regions: [shanghaiRegion], policy: .coreLocation)
        sim.readsAhead = readsAhead
        let inputs = try paths.map {
            TrackInput(
                subject: ($0 as NSString).lastPathComponent, name: $0,
                source: try InputFiles.openTrack(path: $0).source)
        }
        var out = ""
        do {
            let summary = try sim.run(tracks: inputs, writer: JSONLinesEventWriter(), to: &out)
            return (out, summary, nil)
        } catch {
            return (out, nil, "\(error)")
        }
    }

    @Test("a read-ahead run writes byte-identical jsonl and the same summary as a sequential one, bad lines included")
    func identicalToSequential() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let a = try write(walkCSV(fixes: 20_000), to: "a.csv", in: dir)
        let b = try write(walkCSV(fixes: 9_000, start: t0 + 2.5, badEvery: 613), to: "b.csv", in: dir)
        let (seqText, seqSummary, seqError) = try run([a, b], readsAhead: false)
        let (aheadText, aheadSummary, aheadError) = try run([a, b], readsAhead: true)
        #expect(seqError == nil && aheadError == nil)
        #expect(try parseLines(seqText).count > 100)
        #expect(aheadText == seqText)
        let s = try #require(seqSummary)
        let r = try #require(aheadSummary)
        #expect(s.fixesRead == 29_000)
        #expect(s.fixesRejected > 40)
        #expect(r.fixesRead == s.fixesRead && r.fixesRejected == s.fixesRejected)
        #expect(r.eventsByKind == s.eventsByKind)
        #expect(r.firstRejections.map(\.position) == s.firstRejections.map(\.position))
        #expect(r.firstRejections.first?.track == a)
        #expect(r.firstRejections.first?.position.hasPrefix("line 20, column ") == true)
        #expect(r.report(wallSeconds: nil) == s.report(wallSeconds: nil))
    }

    @Test("a track that breaks off (truncated GPX) gives the same events and the same error either way")
    func fatalErrorIdentical() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var gpx = "<gpx><trk><trkseg>\n"
        for i in 0..<9_000 {
            let lat = (i / 150) % 2 == 1 ? 31.240394 : 31.259394
            gpx +=
                "<trkpt lat=\"\(lat)\" lon=\"121.499781\"><time>\(iso(t0 + Double(i) * 5))</time><hacc>10</hacc></trkpt>\n"
        }
        gpx += "<trkpt lat=\"31.2\" lon"
        let path = try write(gpx, to: "cut.gpx", in: dir)
        let (seqText, _, seqError) = try run([path], readsAhead: false)
        let (aheadText, _, aheadError) = try run([path], readsAhead: true)
        #expect(try parseLines(seqText).count > 50)
        #expect(aheadText == seqText)
        #expect(seqError != nil)
        #expect(aheadError == seqError)
        #expect(seqError?.contains("line 9002") == true)
    }
}
