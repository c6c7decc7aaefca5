import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// Safe rectangles let a fix skip the spatial index; they must never change an event. Nor
/// must confirming what is due in the evaluation's own pass (against advancing first).
@Suite("Safe rectangles: skipping the index changes nothing")
struct SafeRectTests {
    /// Circles and polygons, sparse and dense, with dwell and initial triggers.
    static func regions(_ rng: inout SplitMix64, count: Int, spread: Double, prefix: String) -> [Region] {
        let c = Scene.shanghai
        return (0..<count).map { i in
            let p = Scene.point(c, north: rng.uniform(-spread, spread), east: rng.uniform(-spread, spread))
            if i % 4 == 3 {
                let r = rng.uniform(40, 300)
                let n = 5 + Int(rng.nextUnit() * 8)
                let ring = (0..<n).map { k in
                    Scene.point(
                        p, north: r * cos(Double(k) / Double(n) * 2 * .pi) * rng.uniform(0.5, 1),
                        east: r * sin(Double(k) / Double(n) * 2 * .pi) * rng.uniform(0.5, 1))
                }
                return Region(
                    identifier: "\(prefix)\(i)", shape: .polygon(Polygon(exterior: ring)),
                    dwell: i % 3 == 0 ? 40 : nil)
            }
            return .circle(
                identifier: "\(prefix)\(i)", center: p, radius: rng.uniform(30, 400),
                dwell: i % 3 == 0 ? 40 : nil, initialTrigger: i % 11 == 0 ? [.enter, .exit] : [])
        }
    }

    /// Subjects walking (1–40 m per fix), some standing still, some jumping, interleaved;
    /// every `changeEvery` fixes a region is added, removed or replaced.
    /// With `policyEvery`, every that many rounds of fixes all engines switch between
    /// their policy and one where fixes worse than a tenth of a region's size decide
    /// nothing.
    static func compare(
        seed: UInt64, regionCount: Int, spread: Double, changeEvery: Int,
        policyEvery: Int? = nil
    ) throws -> Int {
        var rng = SplitMix64(seed: seed)
        var plain = Engine(policy: seed % 2 == 0 ? .precise : .coreLocation)
        plain.useSafeRects = false
        try plain.add(contentsOf: regions(&rng, count: regionCount, spread: spread, prefix: "r"))
        var fast = plain
        fast.useSafeRects = true
        // Confirmations due before a fix are found in the evaluation's own pass over the
        // tracks; advancing the subject just before each fix must give the same events.
        var stepwise = fast
        let subjects = 8
        var pos = (0..<subjects).map { _ in (rng.uniform(-spread, spread), rng.uniform(-spread, spread)) }
        var expected: [TransitionEvent] = []
        var got: [TransitionEvent] = []
        var advanced: [TransitionEvent] = []
        var extra = 0
        for k in 0..<400 {
            for s in 0..<subjects {
                let step = s == 0 ? 0 : s == 1 ? 1 : rng.uniform(1, 40)
                pos[s].0 += rng.uniform(-step, step)
                pos[s].1 += rng.uniform(-step, step)
                if s == 7, k % 50 == 49 { pos[s] = (rng.uniform(-spread, spread), rng.uniform(-spread, spread)) }
                let accuracy: Double? = rng.nextUnit() < 0.1 ? nil : rng.uniform(3, 60)
                let f = Scene.fix(
                    Scene.point(Scene.shanghai, north: pos[s].0, east: pos[s].1),
                    at: Double(k) * 5 + Double(s) * 0.1, accuracy: accuracy, subject: "s\(s)")
                expected += try plain.process(f)
                got += try fast.process(f)
                advanced += stepwise.advance(
                    subject: f.subject,
                    to: Date(timeIntervalSinceReferenceDate: f.timestamp.timeIntervalSinceReferenceDate.nextDown))
                advanced += try stepwise.process(f)
            }
            if let every = policyEvery, k % every == every - 1 {
                var policy = plain.policy
                policy.maximumAccuracyToSizeRatio = policy.maximumAccuracyToSizeRatio == 0.1 ? 1 : 0.1
                plain.policy = policy
                fast.policy = policy
                stepwise.policy = policy
            }
            if k % changeEvery == changeEvery - 1 {
                switch (k / changeEvery) % 3 {
                case 0:
                    extra += 1
                    let r = regions(&rng, count: 1, spread: spread, prefix: "new\(extra)-")[0]
                    try plain.add(r)
                    try fast.add(r)
                    try stepwise.add(r)
                case 1:
                    let id = plain.regionIdentifiers.sorted()[Int(rng.nextUnit() * Double(plain.regionCount))]
                    plain.remove(identifier: id)
                    fast.remove(identifier: id)
                    stepwise.remove(identifier: id)
                default:
                    let id = plain.regionIdentifiers.sorted()[Int(rng.nextUnit() * Double(plain.regionCount))]
                    let moved = Region.circle(
                        identifier: id, center: Scene.point(Scene.shanghai, north: pos[2].0, east: pos[2].1),
                        radius: rng.uniform(30, 300))
                    try plain.add(moved)
                    try fast.add(moved)
                    try stepwise.add(moved)
                }
            }
        }
        #expect(expected.count > 10)
        #expect(got == expected)
        #expect(advanced == expected)
        for s in plain.subjects {
            for id in plain.regionIdentifiers { #expect(fast.state(of: s, in: id) == plain.state(of: s, in: id)) }
        }
        #expect(plain.safeRectHits == 0)
        return fast.safeRectHits
    }

    @Test(
        "sparse regions: same events with and without safe rectangles, most fixes skip the index",
        arguments: [UInt64(1), 2, 3])
    func sparse(seed: UInt64) throws {
        let hits = try SafeRectTests.compare(seed: seed, regionCount: 80, spread: 4_000, changeEvery: 37)
        #expect(hits > 800) // of 3,200 fixes
    }

    @Test("dense regions: same events with and without safe rectangles", arguments: [UInt64(4), 5])
    func dense(seed: UInt64) throws {
        let hits = try SafeRectTests.compare(seed: seed, regionCount: 300, spread: 1_200, changeEvery: 23)
        #expect(hits > 0)
    }

    @Test("dense regions, the policy switched back and forth: same events", arguments: [UInt64(6), 7])
    func policySwitches(seed: UInt64) throws {
        let hits = try SafeRectTests.compare(
            seed: seed, regionCount: 300, spread: 1_200, changeEvery: 1_000,
            policyEvery: 3)
        #expect(hits > 0)
    }

    @Test(
        "a subject settled inside regions skips their geometry: same entry, dwell, exit and crossing times",
        arguments: [HysteresisPolicy.precise, .coreLocation])
    func settledInside(policy: HysteresisPolicy) throws {
        let home = Region.circle(identifier: "home", center: Scene.shanghai, radius: 400, dwell: 120)
        let block = Region(
            identifier: "block",
            shape: .polygon(
                Polygon(exterior: [
                    Scene.point(Scene.shanghai, north: -300, east: -300),
                    Scene.point(Scene.shanghai, north: -300, east: 300),
                    Scene.point(Scene.shanghai, north: 300, east: 300),
                    Scene.point(Scene.shanghai, north: 300, east: -300),
                ])),
            dwell: 200)
        let far = Region.circle(identifier: "far", center: Scene.point(Scene.shanghai, north: 3_000), radius: 100)
        var plain = Engine(policy: policy)
        plain.useSafeRects = false
        try plain.add(contentsOf: [home, block, far])
        var fast = plain
        fast.useSafeRects = true
        // Confirmations due before a fix are found in the evaluation's own pass over the
        // tracks; advancing the subject just before each fix must give the same events.
        var stepwise = fast
        var rng = SplitMix64(seed: 21)
        var fixes: [LocationFix] = []
        var t = 0.0
        // Outside, walk in, sit (1 m jitter, some poor fixes), walk out, come back, leave.
        for north in stride(from: -900.0, through: 0, by: 30) {
            fixes.append(Scene.fix(Scene.point(Scene.shanghai, north: north), at: t, accuracy: 8))
            t += 5
        }
        for k in 0..<200 {
            let acc: Double = k % 17 == 5 ? 900 : k % 23 == 7 ? 350 : 6
            fixes.append(
                Scene.fix(
                    Scene.point(Scene.shanghai, north: rng.uniform(-1, 1), east: rng.uniform(-1, 1)), at: t,
                    accuracy: acc))
            t += 5
        }
        for north in stride(from: 0.0, through: 900, by: 25) {
            fixes.append(Scene.fix(Scene.point(Scene.shanghai, north: north), at: t, accuracy: 8))
            t += 5
        }
        for north in stride(from: 900.0, through: 100, by: -25) {
            fixes.append(Scene.fix(Scene.point(Scene.shanghai, north: north), at: t, accuracy: 8))
            t += 5
        }
        for k in 0..<60 {
            fixes.append(
                Scene.fix(
                    Scene.point(Scene.shanghai, north: 100 + rng.uniform(-2, 2)), at: t + Double(k) * 5, accuracy: 5))
        }
        t += 300
        for north in stride(from: 100.0, through: -1_200, by: -40) {
            fixes.append(Scene.fix(Scene.point(Scene.shanghai, north: north), at: t, accuracy: 8))
            t += 5
        }
        let expected = try Scene.run(&plain, fixes)
        let got = try Scene.run(&fast, fixes)
        var advanced: [TransitionEvent] = []
        for f in fixes {
            advanced += stepwise.advance(
                subject: f.subject,
                to: Date(timeIntervalSinceReferenceDate: f.timestamp.timeIntervalSinceReferenceDate.nextDown))
            advanced += try stepwise.process(f)
        }
        #expect(got == expected)
        #expect(advanced == expected)
        #expect(expected.filter { $0.kind == .dwell }.count >= 2)
        #expect(expected.filter { $0.kind == .exit }.count >= 3)
        #expect(fast.settledSkips > 50)
        #expect(plain.settledSkips == 0)
        // Removing a region and changing the policy void the shortcut; still the same events.
        plain.remove(identifier: "far")
        fast.remove(identifier: "far")
        plain.policy.confirmationTime += 1
        fast.policy.confirmationTime += 1
        let more = (0..<40).map { k in
            Scene.fix(Scene.point(Scene.shanghai, north: Double(k) * 40 - 1_200), at: t + Double(k) * 5, accuracy: 8)
        }
        #expect(try Scene.run(&fast, more) == Scene.run(&plain, more))
    }

    @Test("a region added under a subject's safe rectangle is found at once")
    func addedUnderRectangle() throws {
        var engine = Engine(policy: .precise)
        try engine.add(.circle(identifier: "far", center: Scene.point(Scene.shanghai, north: 5_000), radius: 100))
        var t = 0.0
        for k in 0..<4 {
            _ = try engine.process(Scene.fix(Scene.point(Scene.shanghai, east: Double(k)), at: t))
            t += 5
        }
        #expect(engine.safeRectHits > 0) // standing still, far from the only region
        try engine.add(.circle(identifier: "here", center: Scene.shanghai, radius: 200, initialTrigger: [.enter]))
        let events = try engine.process(Scene.fix(Scene.shanghai, at: t))
        #expect(events.map(\.regionID) == ["here"])
        #expect(engine.state(of: "phone", in: "here") == .inside)
    }

    @Test("a point query's rectangle holds no box but the ones containing its centre")
    func pointQueryRectangle() {
        var rng = SplitMix64(seed: 9)
        var index = RegionIndex()
        var boxes: [GeoBox] = []
        for _ in 0..<3_000 {
            let lat = rng.uniform(44.9, 45.1)
            let lon = rng.uniform(4.9, 5.1)
            boxes.append(GeoBox.around(latitude: lat, longitude: lon, radius: rng.uniform(20, 600)))
        }
        index.rebuild(slots: Array(0..<Int32(boxes.count)), boxes: boxes)
        // A few dynamic inserts (overflow) too.
        for i in 0..<50 {
            let b = GeoBox.around(latitude: rng.uniform(44.9, 45.1), longitude: rng.uniform(4.9, 5.1), radius: 200)
            boxes.append(b)
            index.insert(slot: Int32(3_000 + i), box: b)
        }
        var nonEmpty = 0
        for _ in 0..<500 {
            let lat = rng.uniform(44.92, 45.08)
            let lon = rng.uniform(4.92, 5.08)
            var safe = SafeRect.everything
            var centre = Set<Int32>()
            index.pointQuery(lat: lat, lon: lon, safe: &safe) { centre.insert($0) }
            var plain = Set<Int32>()
            index.query(lat: lat, lon: lon, dLat: 0, dLon: 0) { plain.insert($0) }
            #expect(centre == plain)
            guard safe.minLat < safe.maxLat, safe.minLon < safe.maxLon else { continue }
            nonEmpty += 1
            // Corners and random points of the rectangle: the plain query finds no other box.
            for _ in 0..<8 {
                let la = safe.minLat + (safe.maxLat - safe.minLat) * rng.nextUnit()
                let lo = safe.minLon + (safe.maxLon - safe.minLon) * rng.nextUnit()
                for (a, o) in [(la, lo), (safe.minLat, safe.minLon), (safe.maxLat.nextDown, safe.maxLon.nextDown)] {
                    index.query(lat: a, lon: o, dLat: 0, dLon: 0) { s in
                        #expect(centre.contains(s), "slot \(s) at (\(a), \(o)) outside the centre's set")
                    }
                    // And the true boxes agree: no box outside the set contains the point.
                    for (s, b) in boxes.enumerated() where !centre.contains(Int32(s)) {
                        if b.minLat <= a, a <= b.maxLat, b.minLon <= o, o <= b.maxLon {
                            Issue.record("box \(s) contains (\(a), \(o)) inside the safe rectangle")
                        }
                    }
                }
            }
        }
        #expect(nonEmpty > 50)
    }

    @Test(
        "within(meters:) keeps every point of the rectangle closer than the distance",
        arguments: [0.0, 31.2, 60, 85, 89.99, -45])
    func withinIsConservative(latitude: Double) {
        for meters in [0.5, 10.0, 250, 5_000] {
            let r = SafeRect.within(meters: meters, ofLatitude: latitude, longitude: 10)
            #expect(r.minLat < latitude && latitude < r.maxLat)
            for (a, o) in [(r.minLat, r.minLon), (r.minLat, r.maxLon), (r.maxLat, r.minLon), (r.maxLat, r.maxLon)] {
                let d = Geodesic.wgs84.inverse(
                    latitude1: latitude, longitude1: 10,
                    latitude2: max(-90, min(90, a)), longitude2: o
                ).distance
                #expect(d < meters * 0.999, "corner (\(a), \(o)) is \(d) m away, limit \(meters) m")
            }
            // Not wastefully small: at least a third of the distance along the meridian.
            #expect((r.maxLat - latitude) * 111_000 > meters / 3)
        }
    }
}
