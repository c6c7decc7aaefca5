import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Hysteresis: margin, confirmation time, poor fixes")
struct HysteresisTests {
    let c = Scene.shanghai

    /// An engine with the subject confirmed inside a 100 m circle (centre fixes for 30 s).
    func insideEngine(_ policy: HysteresisPolicy, radius: Double = 100) throws -> Engine {
        var engine = Engine(policy: policy)
        try engine.add(Scene.circle("zone", c, radius: radius))
        for s in 0..<30 { _ = try engine.process(Scene.fix(c, at: Double(s))) }
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        return engine
    }

    @Test(
        "a subject wandering along the boundary produces no event",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func boundaryWandererIsSilent(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy)
        var events: [TransitionEvent] = []
        // 20 minutes oscillating between 85 m and 115 m from the centre of a 100 m circle,
        // crossing the boundary every few seconds; accuracy ±10 m.
        for s in 30..<1_230 {
            let r = 100 + 15 * sin(Double(s) * 0.9)
            events += try engine.process(Scene.fix(c, north: r, at: Double(s), accuracy: 10))
        }
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
    }

    @Test(
        "one drifting fix far outside, even claiming ±2 m, gives no exit",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func singleGlitchIsNoExit(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy)
        var events = try engine.process(Scene.fix(c, north: 400, at: 30, accuracy: 2))
        for s in 31..<200 { events += try engine.process(Scene.fix(c, north: 10, at: Double(s))) }
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
    }

    @Test(
        "a glitch followed by silence is not confirmed by time alone",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func glitchThenSilenceIsNoExit(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy)
        #expect(try engine.process(Scene.fix(c, north: 400, at: 30, accuracy: 2)).isEmpty)
        #expect(engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(3_600)).isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
    }

    @Test(
        "an out-and-back excursion shorter than the confirmation time gives no exit",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func shortExcursionIsNoExit(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy)
        var events: [TransitionEvent] = []
        let n = Int(policy.confirmationTime) - 1 // fixes at 30 ..< 30+n: spans n-1 s
        for s in 30..<(30 + n) { events += try engine.process(Scene.fix(c, north: 500, at: Double(s), accuracy: 3)) }
        for s in (30 + n)..<(100 + n) { events += try engine.process(Scene.fix(c, north: 0, at: Double(s))) }
        #expect(events.isEmpty)
    }

    @Test(
        "absurd accuracy (±17 km) decides nothing, however long it lasts",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func absurdAccuracyDecidesNothing(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy)
        var events: [TransitionEvent] = []
        for s in 30..<600 { events += try engine.process(Scene.fix(c, north: 5_000, at: Double(s), accuracy: 17_000)) }
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        // A later good fix back inside keeps it inside, and nothing is pending.
        events += try engine.process(Scene.fix(c, at: 601))
        #expect(events.isEmpty)
        #expect(engine.pendingRegions(of: "phone").isEmpty)
    }

    @Test("precise: a 500 m cell-tower fix near a 100 m region decides nothing")
    func poorFixNearSmallRegionDecidesNothing() throws {
        var engine = try insideEngine(.precise)
        var events: [TransitionEvent] = []
        for s in 30..<300 { events += try engine.process(Scene.fix(c, north: 700, at: Double(s), accuracy: 500)) }
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .inside)
    }

    @Test(
        "a real departure is confirmed after the confirmation time, with an interpolated crossing",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func departureIsConfirmed(policy: HysteresisPolicy) throws {
        var engine = try insideEngine(policy, radius: 1_000)
        var events: [TransitionEvent] = []
        // Walk north at 2 m/s from the centre: the boundary (1,000 m) is crossed at t = 530 s.
        for s in 30..<1_200 {
            events += try engine.process(Scene.fix(c, north: Double(s - 30) * 2, at: Double(s), accuracy: 5))
        }
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.kind == .exit)
        #expect(abs(Scene.seconds(e.crossedAt) - 530) < 2)
        // Confirmation: margin then confirmation time.
        let margin = policy.margin(accuracy: 5, regionSize: 1_000)!
        let expected = 530 + margin / 2 + policy.confirmationTime
        #expect(abs(Scene.seconds(e.time) - expected) <= 2)
        #expect(engine.state(of: "phone", in: "zone") == .outside)
    }

    @Test("precise confirms faster than coreLocation on good fixes")
    func preciseIsFaster() throws {
        func exitDelay(_ policy: HysteresisPolicy) throws -> Double {
            var engine = try insideEngine(policy, radius: 500)
            for s in 30..<1_000 {
                let ev = try engine.process(Scene.fix(c, north: Double(s - 30) * 1.4, at: Double(s), accuracy: 5))
                if let e = ev.first { return Scene.seconds(e.time) - Scene.seconds(e.crossedAt) }
            }
            return .infinity
        }
        let fast = try exitDelay(.precise)
        let slow = try exitDelay(.coreLocation)
        #expect(fast < slow / 2)
    }

    @Test("a subject inside that jumps far away still gets its exit")
    func jumpFarAwayStillExits() throws {
        var engine = try insideEngine(.precise)
        var events: [TransitionEvent] = []
        let far = try Coordinate(latitude: 48.85, longitude: 2.35)
        for s in 30..<60 { events += try engine.process(Scene.fix(far, at: Double(s))) }
        #expect(events.map(\.kind) == [.exit])
        #expect(engine.state(of: "phone", in: "zone") == .outside)
    }

    @Test("stationary inside right after registration: no exit from noise")
    func stationaryAfterRegistrationNoExit() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("desk", c, radius: 50))
        var events: [TransitionEvent] = []
        // Deterministic noise up to ±20 m with honest ±20 m accuracy, one 300 m glitch.
        for s in 0..<1_800 {
            let n = 20 * sin(Double(s) * 0.37) * cos(Double(s) * 0.11)
            let e = 20 * cos(Double(s) * 0.23)
            let p = s == 5 ? Scene.point(c, north: 300) : Scene.point(c, north: n, east: e)
            events += try engine.process(Scene.fix(p, at: Double(s), accuracy: s == 5 ? 3 : 20))
        }
        #expect(events.isEmpty)
        // ±20 m fixes are too coarse for a 50 m desk (their 60 m noise margin does not fit in
        // 0.8 × 50 m): they cannot decide "inside", and the glitch after them decides "outside"
        // only once, which does not hold; so the state is never set either way.
        #expect(engine.state(of: "phone", in: "desk") == .unknown)
    }

    @Test("margin rules: fixed, from accuracy, capped for small regions, refused for poor fixes")
    func marginRules() {
        #expect(HysteresisPolicy.coreLocation.margin(accuracy: 5, regionSize: 2_000) == 200)
        #expect(HysteresisPolicy.coreLocation.margin(accuracy: 5, regionSize: 100) == 50)
        #expect(HysteresisPolicy.coreLocation.margin(accuracy: 100, regionSize: 2_000) == 220)
        #expect(HysteresisPolicy.coreLocation.margin(accuracy: 90, regionSize: 150) == nil)
        #expect(HysteresisPolicy.precise.margin(accuracy: 20, regionSize: 2_000) == 60)
        #expect(HysteresisPolicy.precise.margin(accuracy: 1, regionSize: 2_000) == 22)
        #expect(HysteresisPolicy.precise.margin(accuracy: 10, regionSize: 50) == 40)
        #expect(HysteresisPolicy.precise.margin(accuracy: 80, regionSize: 100) == nil)
        #expect(HysteresisPolicy.precise.margin(accuracy: 500, regionSize: 100) == nil)
        var custom = HysteresisPolicy.precise
        custom.accuracyMultiplier = 3
        #expect(custom.margin(accuracy: 20, regionSize: 2_000) == 80)
    }
}
