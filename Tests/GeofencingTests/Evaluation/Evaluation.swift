import Foundation

@testable import Geofencing

// Evaluation harness, part 4: run tracks through a policy and score the events against the
// band ground truth (`BandTruth`).
//
// Matching: a real crossing of region R (kind K, time t) is matched by the first unused engine
// event of the same region and kind whose time lies in [t − 60 s, next real crossing of R);
// its delay is event time − t. Unmatched *required* crossings are missed; unmatched engine
// events (no initial trigger is set, so every event claims a crossing) are false.
// Flapping: enter / exit events whose time falls in a lingering episode (≥ 120 s within 20 m
// of the boundary), per hour of lingering, and the most in any one episode.
struct Score: Sendable {
    var tracks = 0
    var fixes = 0
    var realCrossings = 0
    var requiredCrossings = 0
    var falseEvents = 0
    var missed = 0
    var delays: [Double] = []
    var lingeringSeconds = 0.0
    var lingeringEvents = 0
    var mostPerEpisode = 0

    var median: Double { percentile(0.5) }
    var p95: Double { percentile(0.95) }
    var flappingPerHour: Double { lingeringSeconds > 0 ? Double(lingeringEvents) / (lingeringSeconds / 3_600) : 0 }

    func percentile(_ q: Double) -> Double {
        guard !delays.isEmpty else { return .nan }
        let s = delays.sorted()
        return s[min(s.count - 1, Int((Double(s.count - 1) * q).rounded()))]
    }

    static func + (a: Score, b: Score) -> Score {
        Score(
            tracks: a.tracks + b.tracks, fixes: a.fixes + b.fixes, realCrossings: a.realCrossings + b.realCrossings,
            requiredCrossings: a.requiredCrossings + b.requiredCrossings,
            falseEvents: a.falseEvents + b.falseEvents, missed: a.missed + b.missed, delays: a.delays + b.delays,
            lingeringSeconds: a.lingeringSeconds + b.lingeringSeconds,
            lingeringEvents: a.lingeringEvents + b.lingeringEvents,
            mostPerEpisode: max(a.mostPerEpisode, b.mostPerEpisode))
    }
}

enum Evaluation {
    static let seed: UInt64 = 20_261_123
    static let moversPerMode = 4
    static let tracksPerHardFamily = 6

    /// Every track: movers of each mode, the adversarial families and the recorded tracks, at
    /// every noise level.
    static func tracks(seed: UInt64 = seed) throws -> [SyntheticTrack] {
        try NoiseLevel.allCases.flatMap { level in
            let movers = Mode.allCases.flatMap { mode in
                (0..<moversPerMode).map { SyntheticTrack.make(mode: mode, level: level, index: $0, seed: seed) }
            }
            let hard = HardFamily.allCases.flatMap { family in
                (0..<tracksPerHardFamily).map { SyntheticTrack.make(family, level: level, index: $0, seed: seed) }
            }
            return try movers + hard
                + RecordedTracks.names.map { try RecordedTracks.make($0, level: level, seed: seed) }
        }
    }

    static func score(_ track: SyntheticTrack, policy: HysteresisPolicy) throws -> Score {
        var engine = Engine(policy: policy)
        try engine.add(contentsOf: track.regions)
        var events: [TransitionEvent] = []
        for f in track.fixes { events += try engine.process(f) }
        if let last = track.fixes.last { events += engine.advance(subject: track.subject, to: last.timestamp) }
        events = events.filter { $0.kind != .dwell }
        let at = { (e: TransitionEvent) in e.time.timeIntervalSince(SyntheticTrack.t0) }
        var s = Score(tracks: 1, fixes: track.fixes.count)
        var used = [Bool](repeating: false, count: events.count)
        for region in track.regions {
            let (crossings, episodes) = BandTruth.analyse(
                region, truth: track.truth, times: track.times,
                sigma: track.noiseSigma)
            s.realCrossings += crossings.count
            for (ci, c) in crossings.enumerated() {
                if c.required { s.requiredCrossings += 1 }
                let next = crossings[(ci + 1)...].first?.time ?? .infinity
                let hit = events.indices.first { i in
                    !used[i] && events[i].regionID == c.regionID && events[i].kind == c.kind
                        && at(events[i]) >= c.time - 60 && at(events[i]) < next
                }
                if let i = hit {
                    used[i] = true
                    s.delays.append(at(events[i]) - c.time)
                } else if c.required {
                    s.missed += 1
                    if ProcessInfo.processInfo.environment["GEOFENCE_EVAL_VERBOSE"] != nil {
                        print(
                            "missed \(c.kind) \(c.regionID) at \(c.time) s, next \(next); events: \(events.filter { $0.regionID == c.regionID }.map { "\($0.kind)@\(at($0))" })"
                        )
                    }
                }
            }
            for e in episodes {
                let n = events.filter { $0.regionID == region.identifier && at($0) >= e.start && at($0) <= e.end }.count
                s.lingeringSeconds += e.end - e.start
                s.lingeringEvents += n
                s.mostPerEpisode = max(s.mostPerEpisode, n)
            }
        }
        s.falseEvents = used.filter { !$0 }.count
        if ProcessInfo.processInfo.environment["GEOFENCE_EVAL_VERBOSE"] != nil {
            for (i, e) in events.enumerated() where !used[i] { describe(e, in: track) }
        }
        return s
    }

    /// Prints a false event with the truth and the fixes around it (GEOFENCE_EVAL_VERBOSE=1).
    static func describe(_ e: TransitionEvent, in track: SyntheticTrack) {
        let region = track.regions.first { $0.identifier == e.regionID }!
        let t = e.time.timeIntervalSince(SyntheticTrack.t0)
        print(
            "false \(e.kind) \(e.regionID) at \(t) s (crossed \(e.crossedAt.timeIntervalSince(SyntheticTrack.t0))), size \(region.shape)"
        )
        for (i, f) in track.fixes.enumerated() where abs(track.times[i] - t) <= 60 {
            print(
                String(
                    format: "  t %.0f  truth sd %.1f  fix sd %.1f  accuracy %.1f", track.times[i],
                    region.signedDistance(to: track.truth[i]), region.signedDistance(to: f.coordinate),
                    f.horizontalAccuracy ?? -1))
        }
    }

    /// Scores per (family, noise level), per noise level over all families, and in total.
    static func run(_ tracks: [SyntheticTrack], policy: HysteresisPolicy) throws -> [(String, Score)] {
        var rows: [(String, Score)] = []
        var byKey: [String: Int] = [:]
        for t in tracks {
            let key = "\(t.family), \(t.level.rawValue)"
            let s = try score(t, policy: policy)
            if let i = byKey[key] {
                rows[i].1 = rows[i].1 + s
            } else {
                byKey[key] = rows.count
                rows.append((key, s))
            }
        }
        for level in NoiseLevel.allCases {
            let sum = rows.filter { $0.0.hasSuffix(", \(level.rawValue)") }.map(\.1).reduce(Score(), +)
            rows.append(("**all, \(level.rawValue)**", sum))
        }
        return rows
    }

    /// One markdown table, the two policies side by side (precise / coreLocation).
    static func table(precise: [(String, Score)], core: [(String, Score)]) -> String {
        var out = "| tracks, noise | tracks | fixes | real (required) crossings | false P / C | missed P / C "
        out +=
            "| median delay P / C (s) | p95 delay P / C (s) | lingering h | flapping P / C (events/h; most per episode) |\n"
        out += "|---|---|---|---|---|---|---|---|---|---|\n"
        for ((name, p), (_, c)) in zip(precise, core) {
            out += "| \(name) | \(p.tracks) | \(p.fixes) | \(p.realCrossings) (\(p.requiredCrossings)) "
            out += "| \(p.falseEvents) / \(c.falseEvents) | \(p.missed) / \(c.missed) "
            out += String(
                format: "| %.1f / %.1f | %.1f / %.1f | %.1f ", p.median, c.median, p.p95, c.p95,
                p.lingeringSeconds / 3_600)
            out += String(
                format: "| %.2f / %.2f (%d; %d) |\n", p.flappingPerHour, c.flappingPerHour,
                p.mostPerEpisode, c.mostPerEpisode)
        }
        return out
    }
}
