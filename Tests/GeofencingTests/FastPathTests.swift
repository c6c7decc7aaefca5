import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// The fast entry points — subject handles, an events buffer, batches — give exactly the
/// events and states of `process(_:)`.
@Suite("Subject handles, event buffers and batches")
struct FastPathTests {
    /// Circles of 50–400 m (some with dwell) around Shanghai, and random walks of 6 subjects
    /// through them, interleaved in time, with noisy accuracy.
    static func scenario(seed: UInt64) -> (regions: [Region], fixes: [LocationFix]) {
        var rng = SplitMix64(seed: seed)
        let c = Scene.shanghai
        var regions: [Region] = []
        for i in 0..<60 {
            let p = Scene.point(c, north: (rng.nextUnit() - 0.5) * 3_000, east: (rng.nextUnit() - 0.5) * 3_000)
            regions.append(
                .circle(
                    identifier: "r\(i)", center: p, radius: 50 + rng.nextUnit() * 350,
                    dwell: i % 3 == 0 ? 60 : nil,
                    initialTrigger: i % 7 == 0 ? [.enter, .exit] : []))
        }
        var pos = (0..<6).map { _ in (north: (rng.nextUnit() - 0.5) * 2_000, east: (rng.nextUnit() - 0.5) * 2_000) }
        var fixes: [LocationFix] = []
        for k in 0..<300 {
            for s in pos.indices {
                pos[s].north += (rng.nextUnit() - 0.5) * 60
                pos[s].east += (rng.nextUnit() - 0.5) * 60
                let accuracy: Double? = rng.nextUnit() < 0.1 ? nil : 3 + rng.nextUnit() * 40
                fixes.append(
                    Scene.fix(
                        Scene.point(c, north: pos[s].north, east: pos[s].east),
                        at: Double(k) * 4 + Double(s) * 0.1, accuracy: accuracy,
                        subject: "s\(s)"))
            }
        }
        return (regions, fixes)
    }

    @Test(
        "handle API and into-buffer API give the events of process(_:) on random tracks",
        arguments: [UInt64(1), 2, 3])
    func handleMatchesString(seed: UInt64) throws {
        let (regions, fixes) = FastPathTests.scenario(seed: seed)
        var plain = Engine(policy: .precise)
        try plain.add(contentsOf: regions)
        var fast = plain
        var expected: [TransitionEvent] = []
        for f in fixes { expected += try plain.process(f) }
        #expect(expected.count > 20) // the scenario really produces transitions

        var got: [TransitionEvent] = []
        for f in fixes {
            let h = fast.handle(for: f.subject)
            try fast.process(f, subject: h, into: &got)
        }
        #expect(got == expected)
        for s in plain.subjects {
            for r in regions {
                #expect(fast.state(of: s, in: r.identifier) == plain.state(of: s, in: r.identifier))
            }
        }
    }

    @Test("a batch gives the events of one-by-one processing", arguments: [UInt64(4), 5])
    func batchMatchesSingle(seed: UInt64) throws {
        let (regions, fixes) = FastPathTests.scenario(seed: seed)
        var single = Engine(policy: .coreLocation)
        try single.add(contentsOf: regions)
        var batch = single
        let expected = try Scene.run(&single, fixes)
        let handles = fixes.map { batch.handle(for: $0.subject) }
        var got: [TransitionEvent] = []
        // Uneven slices, so batch boundaries fall everywhere.
        var i = 0
        var step = 1
        while i < fixes.count {
            let j = min(fixes.count, i + step)
            try batch.process(fixes[i..<j], subjects: handles[i..<j], into: &got)
            i = j
            step = step % 70 + 13
        }
        #expect(got == expected)
        #expect(batch.subjects == single.subjects)
    }

    @Test("a track is one cache line and keeps the sign of its last distance")
    func trackLayout() {
        #expect(MemoryLayout<Track>.size == 64)
        var tr = Track(slot: 1, stamp: 1, state: .outside)
        #expect(tr.lastSD.isNaN && tr.isIdle)
        tr.lastSD = 1e-60 // below Float's range: still outside
        #expect(tr.lastSD > 0 && tr.isIdle)
        tr.lastSD = -1e-60
        #expect(tr.lastSD <= 0 && !tr.isIdle)
        tr.lastSD = 123.456_789
        #expect(abs(tr.lastSD - 123.456_789) < 1e-5)
    }

    @Test("more candidates and tracks than the reused memory holds, and engine copies that go their own ways")
    func scratchGrowthAndCopies() throws {
        // 150 concentric circles (more than the 64 of the engine's scratch lists): a walk
        // from 1 km north to the centre enters all of them, the walk back leaves all.
        let c = Scene.shanghai
        let regions = (0..<150).map { Scene.circle("ring\($0)", c, radius: 200 + Double($0)) }
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: regions)
        let inbound = stride(from: 1_000.0, through: 0, by: -25).enumerated().map { k, d in
            Scene.fix(c, north: d, at: Double(k) * 5)
        }
        let t1 = Double(inbound.count) * 5
        let outbound = stride(from: 0.0, through: 1_000, by: 25).enumerated().map { k, d in
            Scene.fix(c, north: d, at: t1 + Double(k) * 5)
        }
        let entries = try Scene.run(&engine, inbound)
        #expect(entries.count == 150 && entries.allSatisfy { $0.kind == .enter })
        #expect(Set(entries.map(\.regionID)) == Set(regions.map(\.identifier)))

        // A copy shares the engine's memory until it evaluates: each must then go its own way.
        var copy = engine
        var other = engine
        _ = try Scene.run(&other, [Scene.fix(c, north: 5_000, at: t1)]) // far away: pending exits
        let exits = try Scene.run(&engine, outbound)
        let exitsOfCopy = try Scene.run(&copy, outbound)
        #expect(exits.count == 150 && exits.allSatisfy { $0.kind == .exit })
        #expect(exitsOfCopy == exits)
        #expect(regions.allSatisfy { engine.state(of: "phone", in: $0.identifier) == .outside })
        #expect(regions.allSatisfy { other.state(of: "phone", in: $0.identifier) == .inside })
    }

    @Test("huge-page advice leaves an array's contents and capacity as they were")
    func hugePageAdvice() {
        var a: [Int64] = []
        a.reserveCapacity(1 << 20) // 8 MiB: above the threshold
        for i in 0..<(1 << 19) { a.append(Int64(i) &* 7) }
        let capacity = a.capacity
        HugePages.advise(&a) // on memory already written, too
        #expect(a.capacity == capacity && a.count == 1 << 19)
        #expect(a.indices.allSatisfy { a[$0] == Int64($0) &* 7 })
        for i in (1 << 19)..<(1 << 20) { a.append(Int64(i) &* 7) }
        #expect(a.capacity == capacity && a.last == Int64((1 << 20) - 1) &* 7)
        var small = [1, 2, 3]
        HugePages.advise(&small)
        #expect(small == [1, 2, 3])
    }

    @Test("a wrong handle is rejected and changes nothing")
    func wrongHandle() throws {
        var engine = Engine()
        try engine.add(Scene.circle(radius: 200))
        let a = engine.handle(for: "a")
        _ = engine.handle(for: "b")
        #expect(engine.handle(for: "a") == a)
        #expect(engine.existingHandle(for: "a") == a)
        #expect(engine.existingHandle(for: "nobody") == nil)
        var events: [TransitionEvent] = []
        let fix = Scene.fix(Scene.shanghai, at: 0, subject: "b")
        #expect(throws: GeofencingError.self) { try engine.process(fix, subject: a, into: &events) }
        #expect(engine.lastFix(of: "a") == nil)
        #expect(engine.lastFix(of: "b") == nil)
        #expect(engine.state(of: "b", in: "zone") == .unknown)
        // A handle from a larger engine does not exist here.
        var other = Engine()
        for n in 0..<5 { _ = other.handle(for: "x\(n)") }
        let foreign = other.handle(for: "b-elsewhere")
        #expect(throws: GeofencingError.self) { try engine.process(fix, subject: foreign, into: &events) }
        #expect(events.isEmpty)
        try engine.process(fix, subject: engine.handle(for: "b"), into: &events)
        #expect(engine.state(of: "b", in: "zone") == .inside)
    }

    @Test("a batch stops at the first bad fix; the fixes before it stay applied")
    func batchStopsAtBadFix() throws {
        var engine = Engine()
        try engine.add(Scene.circle(radius: 200))
        let fixes = [
            Scene.fix(Scene.shanghai, north: 1_000, at: 0),
            Scene.fix(Scene.shanghai, north: 0, at: 10),
            Scene.fix(Scene.shanghai, north: 0, at: 5), // out of order
            Scene.fix(Scene.shanghai, north: 0, at: 30),
        ]
        let h = engine.handle(for: "phone")
        var events: [TransitionEvent] = []
        #expect(throws: GeofencingError.self) {
            try engine.process(fixes[...], subjects: Array(repeating: h, count: 4)[...], into: &events)
        }
        #expect(engine.lastFix(of: "phone") == fixes[1])
        #expect(events.isEmpty)
        #expect(engine.pendingRegions(of: "phone") == ["zone"])
        // Mismatched counts: nothing applied.
        #expect(throws: GeofencingError.self) {
            try engine.process(fixes[3...], subjects: [h, h][...], into: &events)
        }
        #expect(engine.lastFix(of: "phone") == fixes[1])
    }

    @Test(
        "a batch whose later fixes have NaN or huge coordinates (prefetched before validation) applies the good ones and rejects the first bad one",
        arguments: [Double.nan, 1e300, -.infinity])
    func batchPrefetchesBadCoordinates(longitude: Double) throws {
        var engine = Engine()
        try engine.add(Scene.circle(radius: 200))
        var fixes = (0..<8).map { Scene.fix(Scene.shanghai, north: 1_000 - Double($0) * 150, at: Double($0) * 10) }
        fixes[6].coordinate = Coordinate(uncheckedLatitude: 31.2, longitude: longitude)
        fixes[7].coordinate = Coordinate(uncheckedLatitude: longitude, longitude: 121.5)
        let h = engine.handle(for: "phone")
        var events: [TransitionEvent] = []
        #expect(throws: GeofencingError.self) {
            try engine.process(fixes[...], subjects: Array(repeating: h, count: fixes.count)[...], into: &events)
        }
        // A finite longitude is valid (it wraps), a latitude of 1e300 is not.
        let applied = longitude.isFinite ? 6 : 5
        #expect(engine.lastFix(of: "phone")?.timestamp == fixes[applied].timestamp)
    }

    @Test("events appended to a buffer keep what it held and come in time order")
    func bufferAppends() throws {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("a", radius: 300))
        try engine.add(Scene.circle("b", radius: 150))
        var events = [
            TransitionEvent(
                kind: .dwell, regionID: "old", subject: "x",
                fix: Scene.fix(Scene.shanghai, at: -100), time: Scene.t0,
                crossedAt: Scene.t0)
        ]
        let h = engine.handle(for: "phone")
        for t in [0.0, 3, 6, 9] { // outside, held for the confirmation time
            try engine.process(Scene.fix(Scene.shanghai, north: 1_000, at: t), subject: h, into: &events)
        }
        for t in [10.0, 20, 30] {
            try engine.process(Scene.fix(Scene.shanghai, north: 0, at: t), subject: h, into: &events)
        }
        #expect(events.count == 1)
        // The fourth deciding fix, 60 s after the first, confirms both entries.
        try engine.process(Scene.fix(Scene.shanghai, north: 0, at: 70), subject: h, into: &events)
        #expect(events.first?.regionID == "old")
        #expect(Set(events.dropFirst().map(\.regionID)) == ["a", "b"])
        #expect(events.dropFirst().map(\.kind) == [.enter, .enter])
        let times = events.dropFirst().map(\.time)
        #expect(times == times.sorted())
    }
}
