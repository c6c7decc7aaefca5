import Foundation
import Testing

@testable import Geofencing

@Suite("Evaluation harness: synthetic and adversarial tracks against a band ground truth")
struct EvaluationTests {
    @Test("tracks are deterministic, and the adversarial ones stay where they claim to")
    func tracksAreDeterministic() {
        let a = SyntheticTrack.make(mode: .walking, level: .urban, index: 3, seed: Evaluation.seed)
        let b = SyntheticTrack.make(mode: .walking, level: .urban, index: 3, seed: Evaluation.seed)
        #expect(a.fixes == b.fixes && a.regions == b.regions)
        #expect(!BandTruth.analyse(a.regions[0], truth: a.truth, times: a.times, sigma: a.noiseSigma).crossings.isEmpty)
        for level in NoiseLevel.allCases {
            for i in 0..<3 {
                let w = SyntheticTrack.make(.boundaryWalker, level: level, index: i, seed: Evaluation.seed)
                let sd = w.truth.map { w.regions[0].signedDistance(to: $0) }
                // Far at both ends, and a long stretch within 15 m of the boundary between.
                #expect(abs(sd.first!) > 100 && abs(sd.last!) > 100)
                #expect(sd.filter { abs($0) <= 15.01 }.count * Int(level.interval) >= 1_200)
                let s = SyntheticTrack.make(.stationary, level: level, index: i, seed: Evaluation.seed)
                #expect(s.truth.allSatisfy { (20...60).contains(abs(s.regions[0].signedDistance(to: $0))) })
                let g = SyntheticTrack.make(.grazer, level: level, index: i, seed: Evaluation.seed)
                #expect(
                    BandTruth.analyse(g.regions[0], truth: g.truth, times: g.times, sigma: g.noiseSigma).crossings
                        .isEmpty)
            }
        }
    }

    @Test(
        """
        at every noise level: zero false events for both policies, zero missed for precise, at most one \
        state change per lingering episode; precise's median delay at most half of coreLocation's with \
        GPS-grade fixes (good, urban) and no longer than coreLocation's with poor and cell-grade ones
        """)
    func policiesMeetTheirTargets() throws {
        let tracks = try Evaluation.tracks()
        let precise = try Evaluation.run(tracks, policy: .precise)
        let core = try Evaluation.run(tracks, policy: .coreLocation)
        let table = Evaluation.table(precise: precise, core: core)
        print(table)
        let docs = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/semantics.md"),
            encoding: .utf8)
        for row in table.split(separator: "\n") where row.hasPrefix("| ") {
            #expect(docs.contains(row), "docs/semantics.md is missing the harness row: \(row)")
        }
        for ((name, p), (_, c)) in zip(precise, core) {
            #expect(p.falseEvents == 0, "precise, \(name): \(p.falseEvents) false events")
            #expect(p.missed == 0, "precise, \(name): \(p.missed) missed")
            #expect(c.falseEvents == 0, "coreLocation, \(name): \(c.falseEvents) false events")
            #expect(p.mostPerEpisode <= 1 && c.mostPerEpisode <= 1, "\(name): flapping")
        }
        for level in NoiseLevel.allCases {
            let p = precise.first { $0.0 == "**all, \(level.rawValue)**" }!.1
            let c = core.first { $0.0 == "**all, \(level.rawValue)**" }!.1
            #expect(p.requiredCrossings >= 100, "\(level): too few required crossings to mean anything")
            // With σ ≥ 30 m both policies wait for the same evidence (docs/semantics.md).
            let ratio = level == .good || level == .urban ? 0.5 : 1
            #expect(p.median <= c.median * ratio, "\(level): precise median \(p.median) s, coreLocation \(c.median) s")
        }
    }
}
