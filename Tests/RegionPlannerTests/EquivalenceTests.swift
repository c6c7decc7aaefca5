import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// The guarantee: a planner with 20 slots reports exactly the entries and exits of one engine
/// that monitors the whole catalogue, and never registers a 21st region.
@Suite(.drive) struct EquivalenceTests {
    typealias Run = PlannerHarness.Result

    static func run(
        regions: [Region], track: Scenario.Track, policy: HysteresisPolicy,
        sizing: ReplanSizing, fixDriven: Bool, allowsHybrid: Bool = true
    ) async throws -> Run {
        var options = PlannerHarness.Options()
        options.delivery = fixDriven ? .everyFix : .eventsOnly
        options.allowsHybrid = allowsHybrid
        return try await PlannerHarness.run(
            regions: regions, fixes: track.fixes, kilometres: track.length / 1_000,
            policy: policy, sizing: sizing, options: options)
    }

    static func report(_ name: String, _ r: Run) {
        let s = r.statistics
        print(
            """
            [planner churn] \(name): \(String(format: "%.1f", r.kilometres)) km, \
            \(r.reference.count) events, re-plans \(s.replans) \
            (\(String(format: "%.2f", Double(s.replans) / r.kilometres))/km), \
            registrations \(s.registrations) (\(String(format: "%.2f", Double(s.registrations) / r.kilometres))/km), \
            removals \(s.removals) (\(String(format: "%.2f", Double(s.removals) / r.kilometres))/km), \
            max slots \(r.maximumRegistered), hybrid \(String(format: "%.0f", s.hybridSeconds)) s, \
            crossedAt differences \(r.crossedAtDifferences)
            """)
    }

    static func check(_ r: Run, minimumEvents: Int = 40) {
        #expect(r.missed.isEmpty, "missed: \(r.missed.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.extra.isEmpty, "extra: \(r.extra.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.planned.count == r.reference.count, "no event twice")
        #expect(r.crossedAtDifferences == 0, "estimated crossing times differ")
        #expect(r.reference.count >= minimumEvents, "the track must actually cross regions")
        #expect(r.maximumRegistered <= 20)
        #expect(r.statistics.maximumSlotsUsed <= 20)
        #expect(!r.stalledAtEnd)
    }

    /// Apparent speed of the fixes, ignoring the pair around each glitch (they are covered by
    /// the glitch allowance).
    static func apparentSpeed(_ track: Scenario.Track) -> Double {
        var v = 0.0
        let fixes = track.fixes
        for i in fixes.indices.dropFirst() where !track.glitches.contains(i) && !track.glitches.contains(i - 1) {
            let d = Geodesic.wgs84.inverse(fixes[i - 1].coordinate, fixes[i].coordinate).distance
            v = max(v, d / fixes[i].timestamp.timeIntervalSince(fixes[i - 1].timestamp))
        }
        return v
    }

    // 300 km drive, Core Location hysteresis (200 m, 20 s), 100,000 circles of 100 m–2 km
    // over 600 km × 600 km, one fix a second.
    static let driveFrame = Frame(latitude: 46.0, longitude: 6.0)
    static let driveRegions = Scenario.circles(
        count: 100_000, frame: driveFrame, width: 600_000,
        height: 600_000, radii: 100...2_000, seed: 7)
    static let driveTrack = Scenario.track(
        length: 300_000, frame: driveFrame, width: 600_000,
        height: 600_000, speed: 25, interval: 1, noise: 8,
        glitch: 250, turning: 0.01, seed: 11)
    static var driveFixes: [LocationFix] { driveTrack.fixes }
    // Honest fixes claim well under ±90 m (σ = 8 m); lying glitches are the glitch allowance's.
    static let driveSizing = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 2_000,
        maximumSpeed: 40, maximumFixInterval: 1, maximumAccuracy: 90,
        glitchAllowance: 250)

    // 20 km city walk, precise hysteresis (accuracy-based margin, 8 s), 100,000 circles of
    // 30–150 m over 110 km × 110 km.
    static let walkFrame = Frame(latitude: 31.2, longitude: 121.4)
    static let walkRegions = Scenario.circles(
        count: 100_000, frame: walkFrame, width: 110_000,
        height: 110_000, radii: 30...150, seed: 3)
    static let walkTrack = Scenario.track(
        length: 20_000, frame: walkFrame, width: 110_000,
        height: 110_000, speed: 1.4, interval: 2, noise: 6,
        glitch: 60, turning: 0.05, seed: 5)
    static var walkFixes: [LocationFix] { walkTrack.fixes }
    /// The walk's fixes claim about ±8 m, a 36 m margin under `precise`: a shop of 30–45 m
    /// cannot be entered at all and one of 50–80 m only near its centre (docs/semantics.md), so
    /// the walk enters and leaves 14 of the shops it passes.
    static let walkMinimumEvents = 25

    static var walkSizing: ReplanSizing {
        let accuracy = walkFixes.compactMap(\.horizontalAccuracy).max() ?? 65
        return ReplanSizing(
            policy: .precise, largestRegionSize: 150, maximumSpeed: 5,
            maximumFixInterval: 2, maximumAccuracy: accuracy, glitchAllowance: 60)
    }

    @Test("a 300 km drive: the planner with 20 slots reports exactly what a whole-catalogue engine reports")
    func drive() async throws {
        #expect(Self.apparentSpeed(Self.driveTrack) <= Self.driveSizing.maximumSpeed)
        let r = try await Self.run(
            regions: Self.driveRegions, track: Self.driveTrack,
            policy: .coreLocation, sizing: Self.driveSizing, fixDriven: false)
        Self.report("drive 300 km (coreLocation, exit-driven)", r)
        Self.check(r)
        #expect(r.maximumRegistered == 20)
    }

    @Test("a 20 km city walk: the planner with 20 slots reports exactly what a whole-catalogue engine reports")
    func walk() async throws {
        #expect(Self.apparentSpeed(Self.walkTrack) <= Self.walkSizing.maximumSpeed)
        let r = try await Self.run(
            regions: Self.walkRegions, track: Self.walkTrack,
            policy: .precise, sizing: Self.walkSizing, fixDriven: false)
        Self.report("walk 20 km (precise, exit-driven)", r)
        Self.check(r, minimumEvents: Self.walkMinimumEvents)
    }

    @Test("with fixes available the planner re-plans from them and still matches the whole-catalogue engine")
    func walkFixDriven() async throws {
        let r = try await Self.run(
            regions: Self.walkRegions, track: Self.walkTrack,
            policy: .precise, sizing: Self.walkSizing, fixDriven: true)
        Self.report("walk 20 km (precise, fix-driven)", r)
        Self.check(r, minimumEvents: Self.walkMinimumEvents)
    }

    @Test("a re-plan radius that ignores the monitor's hysteresis misses entries (the sizing matters)")
    func naiveRadiusMisses() async throws {
        // r = distance to the nearest unregistered region, no margins, no travel allowance.
        let naive = ReplanSizing(
            exitMarginCap: 0, exitMarginFraction: nil, catalogueMarginCeiling: 0,
            confirmationTime: 0, maximumSpeed: 0, maximumFixInterval: 0)
        let r = try await Self.run(
            regions: Self.driveRegions, track: Self.driveTrack,
            policy: .coreLocation, sizing: naive, fixDriven: false, allowsHybrid: false)
        let missed = r.missed
        print("[planner] naive radius on the drive: \(missed.count) of \(r.reference.count) events missed")
        #expect(!missed.isEmpty)
        #expect(r.maximumRegistered <= 20)
    }

    @Test("a catalogue too dense for slot mode: hybrid mode, or re-planning from every fix, still matches exactly")
    func denseWalkFixDriven() async throws {
        // 100,000 circles over 40 km × 40 km: the 20th nearest is a few hundred metres away.
        let regions = Scenario.circles(
            count: 100_000, frame: Self.walkFrame, width: 40_000,
            height: 40_000, radii: 30...150, seed: 13)
        let track = Scenario.track(
            length: 10_000, frame: Self.walkFrame, width: 40_000, height: 40_000,
            speed: 1.4, interval: 2, noise: 6, glitch: 60, turning: 0.05, seed: 17)
        let accuracy = track.fixes.compactMap(\.horizontalAccuracy).max() ?? 65
        let sizing = ReplanSizing(
            policy: .precise, largestRegionSize: 150, maximumSpeed: 5,
            maximumFixInterval: 2, maximumAccuracy: accuracy, glitchAllowance: 60)
        let slotsOnly = try await Self.run(
            regions: regions, track: track, policy: .precise,
            sizing: sizing, fixDriven: false, allowsHybrid: false)
        #expect(slotsOnly.statistics.replansWithoutGuarantee > 0) // the limit, reported
        let hybrid = try await Self.run(
            regions: regions, track: track, policy: .precise, sizing: sizing, fixDriven: false)
        Self.report("dense walk 10 km (precise, events only, hybrid allowed)", hybrid)
        #expect(hybrid.statistics.hybridEntries > 0)
        Self.check(hybrid)
        let r = try await Self.run(regions: regions, track: track, policy: .precise, sizing: sizing, fixDriven: true)
        Self.report("dense walk 10 km (precise, fix-driven)", r)
        print(
            "[planner] dense walk slots only: \(slotsOnly.missed.count) missed, \(slotsOnly.extra.count) extra of \(slotsOnly.reference.count)"
        )
        Self.check(r)
    }
}
