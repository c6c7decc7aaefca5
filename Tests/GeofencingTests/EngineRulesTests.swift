import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Engine rules: registration, replacement, flags, dwell, initial triggers, advance")
struct EngineRulesTests {
    let c = Scene.shanghai

    /// Walk north from `from` metres to `to` metres at `speed` m/s, starting at `start` s.
    func walk(
        from: Double, to: Double, speed: Double = 2, start: Double = 0,
        subject: String = "phone", accuracy: Double = 5
    ) -> [LocationFix] {
        let n = Int(abs(to - from) / speed)
        return (0...n).map { i in
            let d = from + (to > from ? 1 : -1) * Double(i) * speed
            return Scene.fix(c, north: d, at: start + Double(i), accuracy: accuracy, subject: subject)
        }
    }

    @Test("no event when monitoring starts while the subject is inside, for a subject seen before")
    func noEventWhenRegisteredInside() throws {
        var engine = Engine(policy: .precise)
        _ = try Scene.run(&engine, (0..<10).map { Scene.fix(c, at: Double($0)) })
        try engine.add(Scene.circle("late", c, radius: 200))
        #expect(engine.state(of: "phone", in: "late") == .unknown)
        let events = try Scene.run(&engine, (10..<100).map { Scene.fix(c, at: Double($0)) })
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "late") == .inside)
    }

    @Test("enter then exit across a 300 m circle, each once")
    func enterThenExit() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        let events = try Scene.run(&engine, walk(from: -900, to: 900))
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(events.allSatisfy { $0.time > $0.crossedAt })
        // True crossings at 600 m and 1,200 m of the walk, 2 m/s.
        #expect(abs(Scene.seconds(events[0].crossedAt) - 300) < 2)
        #expect(abs(Scene.seconds(events[1].crossedAt) - 600) < 2)
    }

    @Test(
        "events at the same time: exits, then entries, then dwells, whatever the regions' order",
        arguments: [false, true])
    func sameTimeOrder(northFirst: Bool) throws {
        // Two neighbouring circles; a jump from the north one into the south one confirms the
        // exit and the entry at the same fix. With dwell 0 the entry's dwell comes at once.
        let south = Scene.circle("south", c, radius: 150, dwell: 0)
        let north = Scene.circle("north", Scene.point(c, north: 400), radius: 150)
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: northFirst ? [north, south] : [south, north])
        _ = try Scene.run(&engine, (0..<30).map { Scene.fix(c, north: 400, at: Double($0)) })
        #expect(engine.state(of: "phone", in: "north") == .inside)
        let events = try Scene.run(&engine, (30..<60).map { Scene.fix(c, at: Double($0)) })
        #expect(events.map { "\($0.kind) \($0.regionID)" } == ["exit north", "enter south", "dwell south"])
        #expect(Set(events.map(\.time)).count == 1)
    }

    @Test("replacing a region by identifier resets its state and applies the new shape")
    func replacementResetsState() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        _ = try Scene.run(&engine, (0..<30).map { Scene.fix(c, north: 200, at: Double($0)) })
        #expect(engine.state(of: "phone", in: "zone") == .inside)
        try engine.add(Scene.circle("zone", c, radius: 100)) // now 200 m is outside
        #expect(engine.regionCount == 1)
        #expect(engine.state(of: "phone", in: "zone") == .unknown)
        let events = try Scene.run(&engine, (30..<90).map { Scene.fix(c, north: 200, at: Double($0)) })
        #expect(events.isEmpty) // reset: silent, no exit
        #expect(engine.state(of: "phone", in: "zone") == .outside)
        #expect(engine.region(identifier: "zone")?.shape == .circle(center: c, radius: 100))
    }

    @Test("notify flags gate events but not state")
    func notifyFlags() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("entryOnly", c, radius: 300, exit: false))
        try engine.add(Scene.circle("exitOnly", c, radius: 250, entry: false))
        let events = try Scene.run(&engine, walk(from: -900, to: 900))
        #expect(events.map { "\($0.kind):\($0.regionID)" } == ["enter:entryOnly", "exit:exitOnly"])
        #expect(engine.state(of: "phone", in: "entryOnly") == .outside)
    }

    @Test("dwell fires after staying inside for the dwell time, measured from the crossing")
    func dwellFires() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("shop", c, radius: 300, dwell: 120))
        var events = try Scene.run(&engine, walk(from: -600, to: 0)) // crosses at t = 150
        events += try Scene.run(&engine, (301..<600).map { Scene.fix(c, at: Double($0)) })
        #expect(events.map(\.kind) == [.enter, .dwell])
        let dwell = try #require(events.last)
        #expect(abs(Scene.seconds(dwell.time) - 270) <= 1)
        #expect(abs(Scene.seconds(dwell.crossedAt) - 150) < 2)
    }

    @Test("a drive-by shorter than the dwell time gives no dwell")
    func driveByHasNoDwell() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("shop", c, radius: 300, dwell: 120, entry: false, exit: false))
        let events = try Scene.run(&engine, walk(from: -900, to: 900, speed: 15))
        #expect(events.isEmpty)
    }

    @Test("dwell is delivered by advance when fixes stop, stamped when it was due")
    func dwellByAdvance() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("shop", c, radius: 300, dwell: 200))
        let events = try Scene.run(&engine, walk(from: -600, to: 0)) // crosses at t = 150, last fix t = 300
        #expect(events.map(\.kind) == [.enter])
        #expect(engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(260)).isEmpty) // before last fix
        #expect(engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(340)).isEmpty) // not yet due
        let later = engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(400))
        try #require(later.map(\.kind) == [.dwell])
        #expect(abs(Scene.seconds(later[0].time) - 350) < 2)
        #expect(engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(500)).isEmpty)
    }

    @Test("advance confirms a pending transition by time alone, at first deciding fix + confirmation time")
    func advanceConfirmsPending() throws {
        var engine = Engine(policy: .coreLocation)
        try engine.add(Scene.circle("zone", c, radius: 1_000))
        _ = try Scene.run(&engine, (0..<5).map { Scene.fix(c, north: 1_500, at: Double($0)) })
        var events = try Scene.run(&engine, (5..<9).map { Scene.fix(c, at: Double($0)) }) // pending from t = 5, 4 fixes
        #expect(events.isEmpty)
        #expect(engine.pendingRegions(of: "phone") == ["zone"])
        events = engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(24))
        #expect(events.isEmpty)
        events = engine.advance(subject: "phone", to: Scene.t0.addingTimeInterval(40))
        #expect(events.map(\.kind) == [.enter])
        #expect(Scene.seconds(events[0].time) == 25)
    }

    @Test("calling advance between fixes never changes the events, only when they come")
    func advanceDoesNotChangeOutcome() throws {
        var a = Engine(policy: .precise)
        var b = Engine(policy: .precise)
        for r in [
            Scene.circle("one", c, radius: 300, dwell: 60),
            Scene.circle("two", Scene.point(c, north: 700), radius: 200),
        ] {
            try a.add(r)
            try b.add(r)
        }
        let fixes = walk(from: -900, to: 1_200, speed: 1.5).enumerated().filter { $0.offset % 7 != 3 }.map(\.element)
        var ea: [TransitionEvent] = []
        var eb: [TransitionEvent] = []
        for f in fixes {
            ea += try a.process(f)
            eb += b.advance(subject: "phone", to: f.timestamp.addingTimeInterval(-0.5))
            eb += try b.process(f)
        }
        #expect(ea.count >= 5)
        #expect(
            ea.map { "\($0.kind)\($0.regionID)\($0.time)\($0.crossedAt)" }
                == eb.map { "\($0.kind)\($0.regionID)\($0.time)\($0.crossedAt)" })
    }

    @Test("initial trigger on the region: entry for a subject found inside, exit for one found outside")
    func initialTriggerFromRegion() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("here", c, radius: 300, initial: [.enter, .exit]))
        try engine.add(Scene.circle("far", Scene.point(c, north: 50_000), radius: 300, initial: [.enter, .exit]))
        try engine.add(Scene.circle("quiet", Scene.point(c, north: 20_000), radius: 300))
        let events = try engine.process(Scene.fix(c, at: 0))
        #expect(Set(events.map { "\($0.kind):\($0.regionID)" }) == ["enter:here", "exit:far"])
        #expect(events.allSatisfy { $0.isInitial })
        #expect(try engine.process(Scene.fix(c, at: 1)).isEmpty)
    }

    @Test("initial trigger per call: an entry for the regions this fix finds the subject in")
    func initialTriggerPerCall() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("here", c, radius: 300))
        let events = try engine.process(Scene.fix(c, at: 0), initialTrigger: .enter)
        #expect(events.map(\.kind) == [.enter])
        #expect(events.first?.isInitial == true)
        #expect(try engine.process(Scene.fix(c, at: 1), initialTrigger: .enter).isEmpty)
    }

    @Test("initial dwell trigger: dwell measured from the first inside fix")
    func initialDwell() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("here", c, radius: 300, dwell: 60, initial: [.dwell]))
        try engine.add(Scene.circle("plain", c, radius: 400, dwell: 60))
        let events = try Scene.run(&engine, (0..<100).map { Scene.fix(c, at: Double($0)) })
        #expect(events.map { "\($0.kind):\($0.regionID)" } == ["dwell:here"])
        #expect(Scene.seconds(events[0].time) == 60)
    }

    @Test("removing a region forgets it: no events, state unknown")
    func removeRegion() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        _ = try Scene.run(&engine, (0..<10).map { Scene.fix(c, at: Double($0)) })
        let removed = engine.remove(identifier: "zone")
        let again = engine.remove(identifier: "zone")
        #expect(removed && !again)
        let events = try Scene.run(&engine, walk(from: 0, to: 900, start: 10))
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "zone") == .unknown)
        #expect(engine.regionCount == 0)
    }

    @Test("subjects are independent")
    func subjectsIndependent() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        var events: [TransitionEvent] = []
        let a = walk(from: -900, to: 0, subject: "a")
        let b = walk(from: 0, to: 900, subject: "b")
        for (fa, fb) in zip(a, b) {
            events += try engine.process(fa)
            events += try engine.process(fb)
        }
        #expect(events.map { "\($0.kind):\($0.subject)" } == ["exit:b", "enter:a"])
        #expect(engine.subjects == ["a", "b"])
        #expect(engine.regionsContaining(subject: "a") == ["zone"])
        let wasKnown = engine.resetSubject("a")
        #expect(wasKnown)
        #expect(engine.state(of: "a", in: "zone") == .unknown)
    }
}

@Suite("Engine helpers")
struct EngineHelperTests {
    let c = Scene.shanghai

    @Test("advanceAll confirms every subject's pending transitions")
    func advanceAll() throws {
        var engine = Engine(policy: .coreLocation)
        try engine.add(Scene.circle("zone", c, radius: 1_000))
        for who in ["a", "b"] {
            _ = try engine.process(Scene.fix(c, north: 1_500, at: 0, subject: who))
            for t in 1...4 { _ = try engine.process(Scene.fix(c, at: Double(t), subject: who)) }
        }
        let events = engine.advanceAll(to: Scene.t0.addingTimeInterval(100))
        #expect(Set(events.map(\.subject)) == ["a", "b"])
        #expect(events.allSatisfy { $0.kind == .enter && Scene.seconds($0.time) == 21 })
    }

    @Test("process(contentsOf:) applies fixes up to the first bad one")
    func processSequence() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        let fixes = [Scene.fix(c, at: 0), Scene.fix(c, at: 5), Scene.fix(c, at: 3)]
        #expect(throws: GeofencingError.self) { try engine.process(contentsOf: fixes) }
        #expect(engine.lastFix(of: "phone")?.timestamp == Scene.t0.addingTimeInterval(5))
    }

    @Test("regions(containing:margin:) widens the search by the margin")
    func regionsWithMargin() throws {
        var engine = Engine()
        try engine.add(Scene.circle("zone", c, radius: 100))
        let p = Scene.point(c, north: 150)
        #expect(engine.regions(containing: p).isEmpty)
        #expect(engine.regions(containing: p, margin: 60) == ["zone"])
    }
}
