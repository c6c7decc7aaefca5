import Foundation
import Testing
@testable import Geofencing

@Suite("Evaluation harness: synthetic tracks with known crossings")
struct EvaluationTests {
    @Test("tracks are deterministic and every one has clean true crossings")
    func tracksAreDeterministic() {
        let a = SyntheticTrack.make(mode: .walking, index: 3, seed: Evaluation.seed)
        let b = SyntheticTrack.make(mode: .walking, index: 3, seed: Evaluation.seed)
        #expect(a.fixes == b.fixes && a.regions == b.regions)
        #expect(!a.crossings.isEmpty)
    }

    @Test("precise: zero false, zero missed, median delay at most half of coreLocation's; coreLocation: zero false")
    func policiesMeetTheirTargets() throws {
        let tracks = Evaluation.tracks()
        let precise = try Evaluation.run(tracks, policy: .precise)
        let core = try Evaluation.run(tracks, policy: .coreLocation)
        print(Evaluation.table([("precise", precise), ("coreLocation", core)]))
        let p = precise.last!.1, c = core.last!.1
        #expect(p.trueCrossings > 200)
        #expect(p.falseEvents == 0)
        #expect(p.missed == 0)
        #expect(c.falseEvents == 0)
        #expect(p.median <= c.median / 2)
    }
}
