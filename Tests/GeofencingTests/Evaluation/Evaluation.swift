import Foundation
@testable import Geofencing

// Evaluation harness, part 3: run tracks through a policy and score the events against the
// true crossings.
//
// Matching: a true crossing of region R (kind K, time t) is matched by the first engine event
// of the same region and kind whose time lies in [t − 60 s, next true crossing of R);
// its delay is event time − t. Unmatched true crossings are missed; unmatched engine events
// (initial events aside: there are none, no initial trigger is set) are false.
struct Score: Sendable {
    var tracks = 0
    var fixes = 0
    var trueCrossings = 0
    var falseEvents = 0
    var missed = 0
    var delays: [Double] = []

    var median: Double { percentile(0.5) }
    var p95: Double { percentile(0.95) }

    func percentile(_ q: Double) -> Double {
        guard !delays.isEmpty else { return .nan }
        let s = delays.sorted()
        return s[min(s.count - 1, Int((Double(s.count - 1) * q).rounded()))]
    }

    static func + (a: Score, b: Score) -> Score {
        Score(tracks: a.tracks + b.tracks, fixes: a.fixes + b.fixes, trueCrossings: a.trueCrossings + b.trueCrossings,
              falseEvents: a.falseEvents + b.falseEvents, missed: a.missed + b.missed, delays: a.delays + b.delays)
    }
}

enum Evaluation {
    static let seed: UInt64 = 20_261_123
    static let tracksPerMode = 12

    static func tracks() -> [SyntheticTrack] {
        Mode.allCases.flatMap { mode in
            (0..<tracksPerMode).map { SyntheticTrack.make(mode: mode, index: $0, seed: seed) }
        }
    }

    static func score(_ track: SyntheticTrack, policy: HysteresisPolicy) throws -> Score {
        var engine = Engine(policy: policy)
        try engine.add(contentsOf: track.regions)
        var events: [TransitionEvent] = []
        for f in track.fixes { events += try engine.process(f) }
        events = events.filter { $0.kind != .dwell }
        var s = Score(tracks: 1, fixes: track.fixes.count, trueCrossings: track.crossings.count)
        var used = [Bool](repeating: false, count: events.count)
        for (ci, c) in track.crossings.enumerated() {
            let next = track.crossings[(ci + 1)...].first { $0.regionID == c.regionID }?.time ?? .infinity
            let hit = events.indices.first { i in
                !used[i] && events[i].regionID == c.regionID && events[i].kind == c.kind
                    && events[i].time.timeIntervalSince(SyntheticTrack.t0) >= c.time - 60
                    && events[i].time.timeIntervalSince(SyntheticTrack.t0) < next
            }
            if let i = hit {
                used[i] = true
                s.delays.append(events[i].time.timeIntervalSince(SyntheticTrack.t0) - c.time)
            } else {
                s.missed += 1
            }
        }
        s.falseEvents = used.filter { !$0 }.count
        return s
    }

    /// Scores per mode (and in total) for one policy.
    static func run(_ tracks: [SyntheticTrack], policy: HysteresisPolicy) throws -> [(String, Score)] {
        var byMode: [Mode: Score] = [:]
        for t in tracks { byMode[t.mode] = (byMode[t.mode] ?? Score()) + (try score(t, policy: policy)) }
        var rows = Mode.allCases.compactMap { m in byMode[m].map { (m.rawValue, $0) } }
        rows.append(("all", rows.map(\.1).reduce(Score(), +)))
        return rows
    }

    static func table(_ results: [(String, [(String, Score)])]) -> String {
        var out = "| policy | tracks | fixes | true crossings | false events | missed | median delay (s) | p95 delay (s) |\n"
        out += "|---|---|---|---|---|---|---|---|\n"
        for (policy, rows) in results {
            for (mode, s) in rows {
                out += "| \(policy) \(mode) | \(s.tracks) | \(s.fixes) | \(s.trueCrossings) | \(s.falseEvents) | \(s.missed) | "
                out += String(format: "%.1f | %.1f |\n", s.median, s.p95)
            }
        }
        return out
    }
}
