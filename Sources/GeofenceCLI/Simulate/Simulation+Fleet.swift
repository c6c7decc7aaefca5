import Foundation
import Geodesy
import Geofencing

extension Simulation {
    /// Whether ``run(tracks:progress:emit:)`` may spread these tracks over worker threads
    /// (``TrackLanes``): several tracks, each its own subject, and no map to record (the map
    /// records every fix in the merge's order).
    func canRunInParallel(_ tracks: [TrackInput]) -> Bool {
        workerThreads > 1 && tracks.count > 1 && map == nil && Set(tracks.map(\.subject)).count == tracks.count
    }

    /// The fleet replay on worker threads: each track is read and run through its own copy
    /// of the engine on a worker (``TrackLanes``), and this thread merges the results exactly
    /// as the sequential merge of ``run(tracks:progress:emit:)`` merges the fixes: the same
    /// order of fixes (earliest head first, ties to the first track), the same rejections,
    /// the same moments of writing, so the same output, byte for byte, and the same summary.
    /// The events reach `sink` in the form it asks of the lanes (with their text made on the
    /// workers, the merge only orders and copies bytes). The subjects' states are gathered
    /// back into ``engine`` at the end.
    mutating func runInParallel<Sink: FleetEventSink>(
        tracks: [TrackInput], sink: inout Sink, progress: ((SimulationProgress) -> Void)?
    ) throws -> SimulationSummary {
        var summary = SimulationSummary()
        summary.regionCount = engine.regionCount
        summary.subjects = tracks.map(\.subject)
        let lanes = TrackLanes(tracks: tracks, engine: engine, workers: workerThreads, form: sink.form)
        defer { lanes.stop() }
        // The heads' times (∞: no head) pick the next fix; the tracks' last accepted fix
        // times (∞: a track that is done) give the watermark. Only the chosen track changes
        // per fix, so each is one O(log n) update instead of a scan of every track.
        var heads: [TrackLanes.Processed?] = Array(repeating: nil, count: tracks.count)
        var headTimes = TournamentTree(count: tracks.count, initial: .infinity)
        var lastTimes = TournamentTree(count: tracks.count, initial: -.infinity)
        var done = Array(repeating: false, count: tracks.count)
        var nextProgress = progressInterval

        func reject(_ track: Int, _ position: String, _ reason: String) {
            summary.reject(track: tracks[track].name, position: position, reason: reason)
        }

        /// Reads track `t` until it has a position at its head, or is done.
        func refill(_ t: Int) throws {
            while heads[t] == nil, !done[t] {
                switch try lanes.next(of: t) {
                case .none: done[t] = true
                case .unreadable(let position, let reason)?: reject(t, position, reason)
                case let record?: heads[t] = record
                }
            }
            headTimes[t] = heads[t]?.time ?? .infinity
        }

        for t in tracks.indices {
            try refill(t)
            if done[t], heads[t] == nil { lastTimes[t] = .infinity }
        }
        while true {
            // The track whose head is earliest (ties: the first track).
            var best = headTimes.winner
            if heads[best] == nil {
                // Every head left (if any) is at +∞.
                guard let first = heads.firstIndex(where: { $0 != nil }) else { break }
                best = first
            }
            let head = heads[best]!
            heads[best] = nil
            summary.fixesRead += 1
            switch head {
            case .refused(_, let position, let reason):
                reject(best, position, reason)
            case .accepted(let time, let events):
                lastTimes[best] = time
                // Taken before the lane's next record: the batch holding them is current.
                if !events.isEmpty { lanes.withEvents(of: best) { sink.hold(events, of: $0) } }
            case .unreadable:
                break
            }
            try refill(best)
            if done[best], heads[best] == nil { lastTimes[best] = .infinity }
            if !sink.isEmpty {
                // Later events of subject s are later than its last fix; subjects that are
                // done produce nothing more.
                sink.release(upTo: lastTimes.minimum, summary: &summary)
            }
            if let progress, summary.fixesRead >= nextProgress {
                nextProgress += progressInterval
                progress(
                    SimulationProgress(
                        fixesRead: summary.fixesRead, events: summary.eventCount,
                        bytesRead: tracks.indices.reduce(0) { $0 + lanes.bytesRead(of: $1) }))
            }
        }
        sink.release(upTo: .infinity, summary: &summary)
        for t in tracks.indices { _ = engine.adoptSubject(tracks[t].subject, from: lanes.engine(of: t)) }
        return summary
    }
}
