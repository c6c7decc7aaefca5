import Foundation
import Geodesy
import Testing

@testable import Geofencing

/// Fixes measured ahead on another thread (``FixGeometry``) give exactly the events and
/// states of an engine that measures them itself, and a measurement that does not fit is
/// ignored, never trusted.
@Suite("Fixes measured ahead")
struct MeasuredAheadTests {
    /// A dense town: 250 circles of 30–600 m and 12 squares (some with dwell, some with an
    /// initial trigger) within 2 km of the centre, so that a point is inside a dozen boxes.
    static func denseTown(seed: UInt64) -> [Region] {
        var rng = SplitMix64(seed: seed)
        let c = Scene.shanghai
        var regions: [Region] = (0..<250).map { i in
            .circle(
                identifier: "c\(i)",
                center: Scene.point(c, north: (rng.nextUnit() - 0.5) * 4_000, east: (rng.nextUnit() - 0.5) * 4_000),
                radius: 30 + rng.nextUnit() * 570, dwell: i % 5 == 0 ? 40 : nil,
                initialTrigger: i % 11 == 0 ? [.enter, .exit] : [])
        }
        for i in 0..<12 {
            let centre = Scene.point(c, north: (rng.nextUnit() - 0.5) * 3_000, east: (rng.nextUnit() - 0.5) * 3_000)
            let half = 100 + rng.nextUnit() * 300
            var ring = [(-half, -half), (-half, half), (half, half), (half, -half)].map {
                Scene.point(centre, north: $0.0, east: $0.1)
            }
            ring.append(ring[0])
            regions.append(Region(identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring))))
        }
        return regions
    }

    /// Walks of `subjects` people through the town, interleaved, with what phones do:
    /// irregular gaps (1 s to 5 min), 2 % glitches of 1–3 km, accuracies from 3 m to
    /// 1.5 km (too coarse to decide) or none, people standing at one spot, and a jump out of
    /// town and back.
    static func walks(seed: UInt64, subjects: Int, fixes: Int) -> [LocationFix] {
        var rng = SplitMix64(seed: seed)
        let c = Scene.shanghai
        var pos = (0..<subjects).map { _ in
            (north: (rng.nextUnit() - 0.5) * 3_000, east: (rng.nextUnit() - 0.5) * 3_000)
        }
        var time = [Double](repeating: 0, count: subjects)
        var out: [LocationFix] = []
        for k in 0..<fixes {
            let s = k % subjects
            let gap = rng.nextUnit() < 0.05 ? 60 + rng.nextUnit() * 240 : 1 + rng.nextUnit() * 9
            time[s] += gap
            if rng.nextUnit() > 0.2 { // else: standing still
                pos[s].north += (rng.nextUnit() - 0.5) * 40
                pos[s].east += (rng.nextUnit() - 0.5) * 40
            }
            var north = pos[s].north
            var east = pos[s].east
            if rng.nextUnit() < 0.02 { // a glitch: one fix far off
                north += (rng.nextUnit() - 0.5) * 6_000
                east += (rng.nextUnit() - 0.5) * 6_000
            }
            if k == fixes / 2 { north += 50_000 } // out of town once
            let r = rng.nextUnit()
            let accuracy: Double? = r < 0.1 ? nil : r < 0.15 ? 1_500 : 3 + rng.nextUnit() * 60
            out.append(
                Scene.fix(
                    Scene.point(c, north: north, east: east), at: time[s] + Double(s) * 0.01, accuracy: accuracy,
                    subject: "s\(s)"))
        }
        return out.sorted { $0.timestamp < $1.timestamp }
    }

    /// Feeds `fixes` in uneven batches, each measured ahead by `measure` (nil: not measured).
    static func runBatches(
        _ engine: inout Engine, _ fixes: [LocationFix],
        measure: (ArraySlice<LocationFix>) -> FixGeometry?
    ) throws -> [TransitionEvent] {
        let handles = fixes.map { engine.handle(for: $0.subject) }
        var events: [TransitionEvent] = []
        var i = 0
        var step = 1
        while i < fixes.count {
            let j = min(fixes.count, i + step)
            try engine.process(fixes[i..<j], subjects: handles[i..<j], measured: measure(fixes[i..<j]), into: &events)
            i = j
            step = step % 300 + 37
        }
        return events
    }

    @Test(
        "measured ahead: the same events and states as measured by the engine, dense town, noisy walks",
        arguments: [(UInt64(1), HysteresisPolicy.precise), (2, .coreLocation), (3, .precise)])
    func sameEvents(seed: UInt64, policy: HysteresisPolicy) throws {
        var plain = Engine(policy: policy)
        try plain.add(contentsOf: MeasuredAheadTests.denseTown(seed: seed))
        var ahead = plain
        let fixes = MeasuredAheadTests.walks(seed: seed, subjects: 5, fixes: 6_000)
        let expected = try MeasuredAheadTests.runBatches(&plain, fixes) { _ in nil }
        let geometry = ahead.geometry
        let got = try MeasuredAheadTests.runBatches(&ahead, fixes) { geometry.measure($0) }
        #expect(expected.count > 150)
        #expect(got == expected)
        // The measurements were really used, for most fixes.
        #expect(plain.measuredFixesTaken == 0)
        #expect(ahead.measuredFixesTaken > fixes.count / 4)
        for s in plain.subjects {
            for r in 0..<40 {
                #expect(ahead.state(of: s, in: "c\(r)") == plain.state(of: s, in: "c\(r)"))
            }
            #expect(ahead.pendingRegions(of: s) == plain.pendingRegions(of: s))
        }
    }

    @Test("a measurement of other positions is used as given: the engine trusts the caller for positions")
    func usedAsGiven() throws {
        // The negative control of `sameEvents`: were measurements ignored, this would pass.
        var plain = Engine(policy: .precise)
        try plain.add(contentsOf: MeasuredAheadTests.denseTown(seed: 4))
        var fooled = plain
        let fixes = MeasuredAheadTests.walks(seed: 4, subjects: 1, fixes: 2_000)
        let elsewhere = fixes.map {
            var f = $0
            f.coordinate = Scene.point(f.coordinate, north: 700)
            return f
        }
        let geometry = fooled.geometry
        let expected = try MeasuredAheadTests.runBatches(&plain, fixes) { _ in nil }
        var offset = 0
        let got = try MeasuredAheadTests.runBatches(&fooled, fixes) { batch in
            defer { offset += batch.count }
            return geometry.measure(elsewhere[offset..<(offset + batch.count)])
        }
        #expect(got != expected)
    }

    @Test("a measurement against other regions, or of another count of fixes, is ignored")
    func staleMeasurementIgnored() throws {
        let town = MeasuredAheadTests.denseTown(seed: 5)
        var plain = Engine(policy: .precise)
        try plain.add(contentsOf: town)
        let fixes = MeasuredAheadTests.walks(seed: 5, subjects: 3, fixes: 3_000)
        var ahead = plain
        let before = ahead.geometry
        // The regions change after the measurement: removed ones (their index entries go
        // stale) and a new one over the walks.
        for r in town.prefix(60) {
            _ = plain.remove(identifier: r.identifier)
            _ = ahead.remove(identifier: r.identifier)
        }
        let big = Scene.circle("big", radius: 1_500, dwell: 30)
        try plain.add(big)
        try ahead.add(big)
        let expected = try MeasuredAheadTests.runBatches(&plain, fixes) { _ in nil }
        let got = try MeasuredAheadTests.runBatches(&ahead, fixes) { before.measure($0) }
        #expect(got == expected)
        #expect(ahead.measuredFixesTaken == 0)
        #expect(expected.contains { $0.regionID == "big" })
        // Measured now, after the removals: stale entries are measured as such and skipped.
        var after = ahead
        var again = plain
        let now = after.geometry
        let more = fixes.map {
            var f = $0
            f.timestamp += 100_000
            return f
        }
        let expectedMore = try MeasuredAheadTests.runBatches(&again, more) { _ in nil }
        let gotMore = try MeasuredAheadTests.runBatches(&after, more) { now.measure($0) }
        #expect(gotMore == expectedMore)
        #expect(after.measuredFixesTaken > 0)
        // One fix too few: ignored.
        var short = plain
        var events: [TransitionEvent] = []
        let tail = more.map {
            var f = $0
            f.timestamp += 100_000
            return f
        }
        let handles = tail.map { short.handle(for: $0.subject) }
        let taken = short.measuredFixesTaken
        try short.process(tail[...], subjects: handles[...], measured: now.measure(tail.dropLast()), into: &events)
        #expect(short.measuredFixesTaken == taken)
    }

    @Test(
        "a batch measured ahead still stops at the first bad coordinate, with the fixes before it applied",
        arguments: [Double.nan, 1e300, -Double.infinity, 95])
    func badCoordinates(latitude: Double) throws {
        var engine = Engine()
        try engine.add(contentsOf: MeasuredAheadTests.denseTown(seed: 6))
        var plain = engine
        var fixes = (0..<40).map { Scene.fix(Scene.shanghai, north: 1_000 - Double($0) * 50, at: Double($0) * 10) }
        // A longitude past 180 is valid (it wraps) but is left to the engine to measure.
        fixes[10].coordinate = Coordinate(
            uncheckedLatitude: fixes[10].coordinate.latitude, longitude: fixes[10].coordinate.longitude + 360)
        fixes[30].coordinate = Coordinate(uncheckedLatitude: latitude, longitude: 121.5)
        let measured = engine.geometry.measure(fixes[...])
        #expect(measured.count == fixes.count)
        let h = engine.handle(for: "phone")
        let hp = plain.handle(for: "phone")
        var events: [TransitionEvent] = []
        var expected: [TransitionEvent] = []
        #expect(throws: GeofencingError.self) {
            try engine.process(
                fixes[...], subjects: Array(repeating: h, count: fixes.count)[...], measured: measured, into: &events)
        }
        #expect(throws: GeofencingError.self) {
            try plain.process(fixes[...], subjects: Array(repeating: hp, count: fixes.count)[...], into: &expected)
        }
        #expect(engine.lastFix(of: "phone") == fixes[29])
        #expect(events == expected && !events.isEmpty)
        #expect(engine.measuredFixesTaken > 0)
    }
}
