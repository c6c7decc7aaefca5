import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// An engine restored from ``Engine/subjectSnapshot()`` (over the same regions, added in any
/// order) gives exactly the events and states of the engine that never stopped.
@Suite("Engine snapshots")
struct EngineSnapshotTests {
    /// Runs `fixes[..<cut]` through one engine, snapshots it, restores the snapshot into a
    /// fresh engine whose regions were added in another order (so other slots and stamps),
    /// and runs the rest through both.
    static func split(
        _ regions: [Region], _ fixes: [LocationFix], at cut: Int,
        policy: HysteresisPolicy = .precise
    ) throws -> (straight: [TransitionEvent], restored: [TransitionEvent], Engine, Engine) {
        var straight = Engine(policy: policy)
        try straight.add(contentsOf: regions)
        _ = try Scene.run(&straight, Array(fixes[..<cut]))
        let bytes = straight.subjectSnapshot()
        var restored = Engine(policy: policy)
        for r in regions.reversed() { try restored.add(r) } // one by one, reversed: other stamps
        try restored.restoreSubjects(from: bytes)
        let tail = Array(fixes[cut...])
        return (try Scene.run(&straight, tail), try Scene.run(&restored, tail), straight, restored)
    }

    @Test(
        "snapshot plus the fixes after it gives the events of an uninterrupted engine, wherever the cut falls",
        arguments: [UInt64(1), 2, 3])
    func restoredEqualsUninterrupted(seed: UInt64) throws {
        let (regions, fixes) = FastPathTests.scenario(seed: seed)
        var rng = SplitMix64(seed: seed &* 77)
        for _ in 0..<4 {
            let cut = Int(rng.nextUnit() * 0.7 * Double(fixes.count))
            let (expected, got, straight, restored) = try Self.split(
                regions, fixes, at: cut, policy: seed == 2 ? .coreLocation : .precise)
            #expect(expected.count >= 3) // the tail really has transitions
            #expect(got == expected, "cut at fix \(cut)")
            #expect(restored.subjects == straight.subjects)
            for s in straight.subjects {
                #expect(restored.lastFix(of: s) == straight.lastFix(of: s))
                #expect(restored.pendingRegions(of: s).sorted() == straight.pendingRegions(of: s).sorted())
                for r in regions {
                    #expect(restored.state(of: s, in: r.identifier) == straight.state(of: s, in: r.identifier))
                }
            }
        }
    }

    @Test("a pending entry and an armed dwell survive the snapshot and confirm at the same times")
    func pendingAndDwellSurvive() throws {
        let zone = Scene.circle(radius: 100, dwell: 60)
        let fixes = [
            Scene.fix(Scene.shanghai, north: 400, at: 0), Scene.fix(Scene.shanghai, north: 0, at: 10),
            Scene.fix(Scene.shanghai, north: 5, at: 20), Scene.fix(Scene.shanghai, north: 3, at: 40),
            Scene.fix(Scene.shanghai, north: 2, at: 120), Scene.fix(Scene.shanghai, north: 500, at: 200),
            Scene.fix(Scene.shanghai, north: 520, at: 260),
        ]
        for cut in 1..<fixes.count {
            let (expected, got, _, _) = try Self.split([zone], fixes, at: cut)
            #expect(got == expected, "cut at fix \(cut)")
        }
        let all = try Self.split([zone], fixes, at: 2)
        #expect(all.straight.map(\.kind) == [.enter, .dwell, .exit])
    }

    @Test("a region added after a subject's last fix is still new to it after a restore (initial exit fires)")
    func stampsKeepNewRegionsNew() throws {
        let near = Scene.circle("near", radius: 100)
        let far = Scene.circle("far", Scene.point(Scene.shanghai, north: 20_000), radius: 100, initial: [.exit])
        var straight = Engine(policy: .precise)
        try straight.add(near)
        _ = try straight.process(Scene.fix(Scene.shanghai, north: 500, at: 0))
        try straight.add(far)
        let bytes = straight.subjectSnapshot()
        var restored = Engine(policy: .precise)
        try restored.add(contentsOf: [far, near])
        try restored.restoreSubjects(from: bytes)
        let next = Scene.fix(Scene.shanghai, north: 510, at: 10)
        let expected = try straight.process(next)
        #expect(expected.map(\.regionID) == ["far"])
        #expect(try restored.process(next) == expected)
    }

    @Test("a damaged, truncated, foreign-version or empty snapshot is refused and the engine is unchanged")
    func corruptSnapshotsAreRefused() throws {
        let (regions, fixes) = FastPathTests.scenario(seed: 9)
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: regions)
        _ = try Scene.run(&engine, Array(fixes.prefix(200)))
        let good = engine.subjectSnapshot()
        var target = Engine(policy: .precise)
        try target.add(contentsOf: regions)
        _ = try target.process(Scene.fix(Scene.shanghai, at: 0, subject: "only"))

        var flipped = good
        flipped[flipped.count / 2] ^= 0x40
        var otherVersion = good
        otherVersion[4] = 2
        for bad in [flipped, good.prefix(good.count - 3), Data(), Data("GFES".utf8), Data(repeating: 0xff, count: 64)] {
            #expect(throws: EngineSnapshotError.self) { try target.restoreSubjects(from: Data(bad)) }
            #expect(target.subjects == ["only"])
        }
        #expect(throws: EngineSnapshotError.unsupportedVersion(2)) { try target.restoreSubjects(from: otherVersion) }
    }

    @Test("a snapshot taken over other regions or under another policy is refused")
    func otherCatalogueIsRefused() throws {
        let (regions, fixes) = FastPathTests.scenario(seed: 10)
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: regions)
        _ = try Scene.run(&engine, Array(fixes.prefix(100)))
        let bytes = engine.subjectSnapshot()

        var fewer = Engine(policy: .precise)
        try fewer.add(contentsOf: regions.dropLast())
        #expect(throws: EngineSnapshotError.regionsDiffer) { try fewer.restoreSubjects(from: bytes) }

        var moved = Engine(policy: .precise)
        var changed = regions
        changed[0] = Scene.circle(regions[0].identifier, Scene.point(Scene.shanghai, north: 9_000), radius: 80)
        try moved.add(contentsOf: changed)
        #expect(throws: EngineSnapshotError.regionsDiffer) { try moved.restoreSubjects(from: bytes) }

        var other = Engine(policy: .coreLocation)
        try other.add(contentsOf: regions)
        #expect(throws: EngineSnapshotError.policyDiffers) { try other.restoreSubjects(from: bytes) }
    }

    @Test("odd names, removed and replaced regions, and an engine with no subjects round-trip exactly")
    func oddCases() throws {
        // No subjects at all.
        var empty = Engine(policy: .precise)
        try empty.add(Scene.circle("a"))
        var emptyCopy = Engine(policy: .precise)
        try emptyCopy.add(Scene.circle("a"))
        try emptyCopy.restoreSubjects(from: empty.subjectSnapshot())
        #expect(emptyCopy.subjects.isEmpty)

        // Non-ASCII and long names; a region removed and one replaced while subjects track them
        // (their dead tracks are not carried over).
        let name = "設備-🚚-" + String(repeating: "x", count: 5_000)
        let zone = Scene.circle("zone ✓", radius: 120, dwell: 30)
        let other = Scene.circle("other", Scene.point(Scene.shanghai, north: 50), radius: 200)
        var straight = Engine(policy: .precise)
        try straight.add(contentsOf: [zone, other])
        let fixes = (0..<12).map {
            Scene.fix(Scene.shanghai, north: Double($0 % 4) * 10, at: Double($0) * 10, subject: name)
        }
        _ = try Scene.run(&straight, Array(fixes.prefix(6)))
        straight.remove(identifier: "other")
        try straight.add(Scene.circle("zone ✓", radius: 90))
        let bytes = straight.subjectSnapshot()
        var restored = Engine(policy: .precise)
        try restored.add(Scene.circle("zone ✓", radius: 90))
        try restored.restoreSubjects(from: bytes)
        #expect(restored.subjects == [name])
        #expect(
            try Scene.run(&restored, Array(fixes.dropFirst(6))) == (try Scene.run(&straight, Array(fixes.dropFirst(6))))
        )
    }

    @Test("a snapshot cache gives the bytes of a fresh snapshot after every kind of region change, on copies too")
    func cacheNeverStale() throws {
        let (regions, fixes) = FastPathTests.scenario(seed: 11)
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: regions)
        _ = try Scene.run(&engine, Array(fixes.prefix(150)))
        var cache = SnapshotCache()
        func expectFresh(_ e: Engine, _ step: String) {
            #expect(e.subjectSnapshot(cache: &cache) == e.subjectSnapshot(), "after \(step)")
        }
        expectFresh(engine, "the first snapshot")
        expectFresh(engine, "nothing") // the cached walk, reused
        _ = try Scene.run(&engine, Array(fixes[150..<220]))
        expectFresh(engine, "fixes only")
        try engine.add(Scene.circle("added", Scene.point(Scene.shanghai, north: 300), radius: 90))
        expectFresh(engine, "an add")
        try engine.add(Scene.circle("added", Scene.point(Scene.shanghai, north: 320), radius: 60))
        expectFresh(engine, "a replacement")
        engine.remove(identifier: regions[3].identifier)
        expectFresh(engine, "a removal")
        try engine.add(
            contentsOf: (0..<1_500).map {
                Scene.circle("bulk-\($0)", Scene.point(Scene.shanghai, north: Double($0) * 40), radius: 30)
            })
        expectFresh(engine, "a bulk add")

        // Two copies that diverge by one region each: neither may take the other's walk.
        var left = engine
        var right = engine
        try left.add(Scene.circle("only-left", Scene.point(Scene.shanghai, north: -700), radius: 50))
        try right.add(Scene.circle("only-right", Scene.point(Scene.shanghai, north: -700), radius: 50))
        expectFresh(left, "the left copy's add")
        expectFresh(right, "the right copy's add")
        expectFresh(left, "switching back to the left copy")

        // A restore rewrites the stamps without changing the regions.
        let bytes = engine.subjectSnapshot()
        var restored = Engine(policy: .precise)
        try restored.add(contentsOf: engine.regions.reversed())
        expectFresh(restored, "adding in another order")
        try restored.restoreSubjects(from: bytes)
        expectFresh(restored, "a restore")
        restored.removeAllRegions()
        expectFresh(restored, "removing every region")
        var emptied = Engine(policy: .precise)
        try emptied.add(contentsOf: regions)
        expectFresh(emptied, "a bulk add into an empty engine")
    }
}
