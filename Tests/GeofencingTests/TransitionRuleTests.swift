import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// The rule's numbers, one scenario each (docs/semantics.md, "Vocabulary" and "Policies").
@Suite("Transition rule: margins, coarse fixes, persistence, lying accuracy")
struct TransitionRuleTests {
    let c = Scene.shanghai

    /// Fixes every `step` seconds from `start`, `north` metres from the centre of `c`.
    func fixes(_ norths: [Double], accuracy: [Double], from start: Double = 0, step: Double = 1) -> [LocationFix] {
        norths.indices.map { i in
            Scene.fix(c, north: norths[i], at: start + Double(i) * step, accuracy: accuracy[i % accuracy.count])
        }
    }

    /// A settled-inside engine: 20 fixes 200 m deep in a 400 m circle.
    func insideEngine(_ policy: HysteresisPolicy = .precise) throws -> Engine {
        var engine = Engine(policy: policy)
        try engine.add(Scene.circle(radius: 400))
        _ = try Scene.run(&engine, fixes(Array(repeating: 200, count: 20), accuracy: [5]))
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        return engine
    }

    @Test("precise margin is 20 m + 2 × accuracy: ±5 m fixes 29 m out never exit, 31 m out do")
    func marginIsBandPlusTwoAccuracies() throws {
        #expect(HysteresisPolicy.precise.margin(accuracy: 5, regionSize: 400) == 30)
        var engine = try insideEngine()
        // 400 m radius: "north: 429" is 29 m outside.
        let near = try Scene.run(&engine, fixes(Array(repeating: 429, count: 60), accuracy: [5], from: 20))
        #expect(near.isEmpty)
        let past = try Scene.run(&engine, fixes(Array(repeating: 431, count: 12), accuracy: [5], from: 80))
        #expect(past.map(\.kind) == [.exit])
        #expect(past.first.map { Scene.seconds($0.time) } == 88) // 8 s after the first deciding fix
    }

    @Test("a walker swinging ±15 m across the boundary for an hour with good fixes raises nothing")
    func boundaryWalkerIsQuiet() throws {
        var engine = try insideEngine()
        let swing = (0..<3_600).map { 400 + 15 * sin(Double($0) * 2 * .pi / 97) }
        #expect(try Scene.run(&engine, fixes(swing, accuracy: [4, 6, 8], from: 20)).isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
    }

    @Test("a ±90 m cell fix cannot put a phone inside a 150 m circle (its 200 m margin does not fit in 0.8 × 150 m)")
    func coarseFixDecidesNothingForSmallRegion() throws {
        #expect(HysteresisPolicy.precise.margin(accuracy: 90, regionSize: 150) == nil)
        #expect(HysteresisPolicy.coreLocation.margin(accuracy: 90, regionSize: 150) == nil)
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle(radius: 150))
        // Lying 45 m outside, cell fixes every 10 s scattered 150 m either way, for two hours.
        let scatter = (0..<720).map { 195 + 150 * sin(Double($0) * 1.7) }
        #expect(try Scene.run(&engine, fixes(scatter, accuracy: [90], step: 10)).isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .unknown)
    }

    @Test(
        "a fix too coarse for a small region still decides \"outside\" past its margin: no region is too small to leave"
    )
    func coarseFixStillDecidesOutside() throws {
        // ±40 m: a 100 m noise margin, more than 0.8 × 50 m, so it cannot decide "inside".
        #expect(HysteresisPolicy.precise.margin(accuracy: 40, regionSize: 50) == nil)
        #expect(HysteresisPolicy.precise.exitMargin(accuracy: 40, regionSize: 50) == 100)
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle(radius: 50))
        _ = try Scene.run(&engine, fixes(Array(repeating: 0, count: 10), accuracy: [3]))
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        // Coarse fixes 99 m past the boundary decide nothing; 101 m past, they confirm the exit.
        let near = try Scene.run(&engine, fixes(Array(repeating: 149, count: 30), accuracy: [40], from: 10))
        #expect(near.isEmpty)
        let past = try Scene.run(&engine, fixes(Array(repeating: 151, count: 10), accuracy: [40], from: 40))
        #expect(past.map(\.kind) == [.exit])
        // And a first look with such a fix far away sets "outside", so the planner can rule the region out.
        var fresh = Engine(policy: .precise)
        try fresh.add(Scene.circle(radius: 50))
        _ = try Scene.run(&fresh, fixes([2_000], accuracy: [40]))
        #expect(fresh.state(of: "phone", in: "zone") == .outside)
    }

    @Test("sparse fixes need fewer deciding fixes: four within 30 s, three over 30 s, two over 60 s")
    func sparseFixesNeedFewer() throws {
        let p = HysteresisPolicy.precise
        #expect(
            [0, 29.9, 30, 59.9, 60, 3_600, .infinity, .nan].map { p.confirmingFixesNeeded(spanning: $0) }
                == [4, 4, 3, 3, 2, 2, 2, 4])
        #expect(
            [1, 10, 15, 20, 30, 60, 600].map { p.shortestConfirmation(fixInterval: $0) } == [
                8, 30, 30, 40, 60, 60, 600,
            ])
        #expect(HysteresisPolicy.coreLocation.shortestConfirmation(fixInterval: 1) == 20)
        // One fix a minute: the entry is confirmed by the second fix inside.
        var minute = Engine(policy: p)
        try minute.add(Scene.circle(radius: 400))
        let walk = try Scene.run(&minute, fixes([1_000, 200, 200], accuracy: [10], step: 60))
        #expect(walk.map(\.kind) == [.enter])
        #expect(walk.first.map { Scene.seconds($0.time) } == 120)
        // One every 30 s: by the third.
        var half = Engine(policy: p)
        try half.add(Scene.circle(radius: 400))
        let events = try Scene.run(&half, fixes([1_000, 200, 200, 200], accuracy: [10], step: 30))
        #expect(events.first.map { Scene.seconds($0.time) } == 90)
    }

    @Test(
        "after undecided fixes, a first state needs four deciding fixes over the confirmation time: a jump sets nothing"
    )
    func firstStateIsConfirmed() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle(radius: 400))
        // Starts 60 m inside with fixes too close to decide, then one fix jumps 500 m out.
        // (±25 m: a 70 m margin; 60 m inside does not decide.)
        _ = try Scene.run(&engine, fixes([340, 345, 900, 340, 345], accuracy: [25]))
        #expect(engine.state(of: "phone", in: "zone") == .unknown)
        _ = try Scene.run(&engine, fixes(Array(repeating: 200, count: 10), accuracy: [5], from: 5))
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        #expect(engine.pendingRegions(of: "phone").isEmpty)
    }

    @Test("a three-fix jump at one fix per 10 s never confirms an exit; a fourth fix out does")
    func jumpOfThreeFixesNeverConfirms() throws {
        var engine = try insideEngine()
        let jump = fixes([200, 800, 790, 810, 200, 200], accuracy: [30], from: 30, step: 10)
        #expect(try Scene.run(&engine, jump).isEmpty)
        let departure = fixes([800, 790, 810, 805], accuracy: [30], from: 100, step: 10)
        #expect(try Scene.run(&engine, departure).map(\.kind) == [.exit])
    }

    @Test("a fix claiming ±3 m right after ±90 m ones is taken at the recent accuracy (Tracelet#294)")
    func lyingAccuracyIsNotBelieved() throws {
        // 1 km circle, phone settled inside with ±90 m fixes 400 m deep.
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle(radius: 1_000))
        _ = try Scene.run(&engine, fixes(Array(repeating: 600, count: 6), accuracy: [90], step: 10))
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        // Four fixes 60 m outside claiming ±3 m, 10 s apart: believed, a 26 m margin and an
        // exit; judged by the median of the recent claims, the first two count as ±90 m (a
        // 200 m margin), so four deciding fixes never accumulate.
        let liars = fixes([1_060, 1_060, 1_060, 1_060], accuracy: [3], from: 60, step: 10)
        #expect(try Scene.run(&engine, liars).isEmpty)
        var trusting = HysteresisPolicy.precise
        trusting.judgesAccuracyByRecentFixes = false
        var believer = Engine(policy: trusting)
        try believer.add(Scene.circle(radius: 1_000))
        _ = try Scene.run(&believer, fixes(Array(repeating: 600, count: 6), accuracy: [90], step: 10))
        #expect(try Scene.run(&believer, liars).map(\.kind) == [.exit])
    }

    @Test("TransitionRule.effectiveAccuracy: the claim, but no better than the median of it and the last four")
    func effectiveAccuracy() {
        #expect(TransitionRule.effectiveAccuracy(claimed: 3, previous: [45, 40, 50, 3]) == 40)
        #expect(TransitionRule.effectiveAccuracy(claimed: 8, previous: [400, 8, 8, 8]) == 8)
        #expect(TransitionRule.effectiveAccuracy(claimed: 60, previous: [45, 40, 50, 3]) == 60)
        #expect(TransitionRule.effectiveAccuracy(claimed: 3, previous: [0, 0, 0, 0]) == 3)
        #expect(TransitionRule.median(5, 1, 4, 2, 3) == 3)
    }
}
