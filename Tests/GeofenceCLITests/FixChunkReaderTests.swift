import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

/// The single track's reading thread cuts its fixes into the engine's chunks (issue 35).
@Suite("Fix chunk reader")
struct FixChunkReaderTests {
    /// Every chunk until the end or the error: fix counts, or `-1` for a rejection.
    /// `measured` counts the chunks whose measurement covers exactly their fixes.
    func drain(_ reader: FixChunkReader) -> (shape: [Int], fixes: [LocationFix], error: (any Error)?, measured: Int) {
        var measured = 0
        var shape: [Int] = []
        var fixes: [LocationFix] = []
        do {
            while true {
                let chunks = try reader.nextBatch()
                if chunks.isEmpty { break }
                for c in chunks {
                    switch c {
                    case .fixes(let f, let geometry):
                        if geometry?.count == f.count { measured += 1 }
                        shape.append(f.count)
                        fixes += f
                    case .rejected: shape.append(-1)
                    }
                }
            }
        } catch {
            return (shape, fixes, error, measured)
        }
        return (shape, fixes, nil, measured)
    }

    @Test("chunks end at the chunk size and at each rejected record, and hold the checked fixes")
    func cutsWhereTheRunFeeds() throws {
        var records = positions((0..<10).map { (t: t0 + Double($0), lat: 31.24) }).map(TrackRecord.position)
        records.append(.rejected(position: "line 12", reason: "bad"))
        records += positions((10..<13).map { (t: t0 + Double($0), lat: 31.24) }).map(TrackRecord.position)
        records += positions([(t: t0 + 13, lat: 95)]).map(TrackRecord.position) // refused by the checks
        records += positions([(t: t0 + 5, lat: 31.24)]).map(TrackRecord.position) // out of order
        records += positions((14..<16).map { (t: t0 + Double($0), lat: 31.24) }).map(TrackRecord.position)
        let checked = CheckedTrackSource(ArrayTrackSource(records), subject: "s", after: -.infinity)
        let result = drain(FixChunkReader(checked, chunkSize: 4))
        #expect(result.error == nil)
        #expect(result.shape == [4, 4, 2, -1, 3, -1, -1, 2])
        #expect(
            result.fixes.map(\.timestamp.timeIntervalSince1970) == (0..<13).map { t0 + Double($0) } + [
                t0 + 14, t0 + 15,
            ])
        #expect(result.fixes.allSatisfy { $0.subject == "s" && $0.horizontalAccuracy == 10 })
        #expect(checked.invalidPositions == 2)
        #expect(result.measured == 0)
        // Given the engine's regions, every chunk comes measured.
        let again = CheckedTrackSource(ArrayTrackSource(records), subject: "s", after: -.infinity)
        var engine = Engine()
        try engine.add(.circle(identifier: "z", center: Coordinate(latitude: 31.24, longitude: 121.5), radius: 500))
        let measured = drain(FixChunkReader(again, chunkSize: 4, measuring: engine.geometry))
        #expect(measured.shape == result.shape && measured.fixes == result.fixes)
        #expect(measured.measured == 5)
    }

    @Test("an error ending the source comes after the chunks read before it")
    func errorAfterChunks() {
        let checked = CheckedTrackSource(ThrowingSource(count: 10), subject: "s", after: -.infinity)
        let result = drain(FixChunkReader(checked, chunkSize: 4))
        #expect(result.shape == [4, 4, 2])
        #expect(result.error as? ThrowingSource.Failure == ThrowingSource.Failure(after: 10))
    }

    @Test("releasing it early stops the reading thread (the test would hang otherwise)")
    func releaseEarly() throws {
        let checked = CheckedTrackSource(ThrowingSource(count: 1_000_000), subject: "s", after: -.infinity)
        var reader: FixChunkReader? = FixChunkReader(checked, chunkSize: 1)
        #expect(try reader?.nextBatch().count == FixChunkReader.chunksPerBatch)
        reader = nil
    }
}
