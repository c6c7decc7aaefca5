import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// Dense places: where 19 slots cannot cover the re-plan circle the planner goes hybrid
/// (continuous updates, its own engine over the nearby catalogue) and comes back when the
/// area thins out; the app sees the switches.
@Suite(.drive) struct HybridModeTests {
    static let frame = Frame(latitude: 48.85, longitude: 2.35)

    /// 33 circles (60–400 m) all containing the square at the origin, 2,000 more over 20 km × 20 km.
    static let downtown: [Region] = {
        var rng = SplitMix64(seed: 33)
        var out: [Region] = (0..<33).map { i in
            let r = rng.uniform(60, 400)
            let d = rng.uniform(0, r * 0.6)
            let a = rng.uniform(0, 2 * .pi)
            return .circle(identifier: "core-\(i)", center: frame.coordinate(d * sin(a), d * cos(a)), radius: r)
        }
        out += Scenario.circles(
            count: 2_000, frame: frame, width: 20_000, height: 20_000, radii: 30...150, seed: 34, prefix: "shop-"
        )
        .map { r in
            var r = r
            if case .circle(let c, let radius) = r.shape { // shift the box so the square is its middle
                let p = LocalProjection(origin: frame.origin).project(c)
                r = .circle(
                    identifier: r.identifier, center: frame.coordinate(p.east - 10_000, p.north - 10_000),
                    radius: radius)
            }
            return r
        }
        return out
    }()

    /// A walk (1.4 m/s, a fix every 2 s, σ 4 m) from 3 km west of the square through it and
    /// 3 km on, then back to the square and a stop of 10 minutes there.
    static func walk() -> [LocationFix] {
        var rng = SplitMix64(seed: 35)
        var fixes: [LocationFix] = []
        let start = Date(timeIntervalSince1970: 1_760_000_000)
        var t = 0.0
        func at(_ e: Double, _ n: Double) {
            fixes.append(
                LocationFix(
                    subject: "walker",
                    coordinate: frame.coordinate(e + 4 * rng.nextGaussian(), n + 4 * rng.nextGaussian()),
                    horizontalAccuracy: 6, timestamp: start.addingTimeInterval(t)))
            t += 2
        }
        for e in stride(from: -3_000.0, through: 3_000, by: 2.8) { at(e, 20) }
        for e in stride(from: 3_000.0, through: 0, by: -2.8) { at(e, -20) }
        for _ in 0..<300 { at(0, 0) }
        return fixes
    }

    static let sizing = ReplanSizing(
        policy: .precise, largestRegionSize: 400, maximumSpeed: 3,
        maximumFixInterval: 2, maximumAccuracy: 20, glitchAllowance: 60)

    @Test("a city walk through 33 overlapping regions: hybrid mode gives exactly the whole-catalogue engine's events")
    func cityWalk() async throws {
        let fixes = Self.walk()
        let r = try await PlannerHarness.run(
            regions: Self.downtown, fixes: fixes, kilometres: 9,
            policy: .precise, sizing: Self.sizing)
        print(DriveEquivalenceTests.summary("city walk, 33 overlapping, precise, 2 s, events only", r))
        DriveEquivalenceTests.exact(r, minimumEvents: 66)
        #expect(
            r.reference.filter { $0.region.hasPrefix("core-") && $0.kind == .enter }.count >= 66, "all 33 entered twice"
        )
        #expect(r.statistics.hybridEntries >= 1)
        let switches = r.notices.compactMap { if case .modeChanged(let m, _) = $0 { m } else { nil } }
        #expect(
            switches.first == .hybrid && switches.contains(.slots),
            "hybrid in the centre, slots again outside: \(switches)")
    }

    @Test("slots only (hybrid not allowed), the same walk misses events — and says the plans were not guaranteed")
    func slotsOnlyMisses() async throws {
        var options = PlannerHarness.Options()
        options.allowsHybrid = false
        let r = try await PlannerHarness.run(
            regions: Self.downtown, fixes: Self.walk(), kilometres: 9,
            policy: .precise, sizing: Self.sizing, options: options)
        #expect(r.statistics.replansWithoutGuarantee > 0)
        #expect(!r.missed.isEmpty)
    }

    @Test(
        "the switch to hybrid asks the monitor for updates, is readable in the status, and is undone when the area thins"
    )
    func statusAndUpdates() async throws {
        let monitor = EngineSlotMonitor(subject: "walker", policy: .precise)
        let planner = try RegionPlanner(
            monitor: monitor,
            sources: [
                PlannerSource(prefix: "p.", catalogue: try Catalogue(Self.downtown.map { CatalogueEntry(region: $0) }))
            ],
            sizing: Self.sizing, policy: .precise)
        let fixes = Self.walk()
        try await planner.start(at: fixes[0])
        #expect(await planner.status.mode == .slots)
        #expect(!monitor.locationUpdatesEnabled)
        var sawHybrid = false
        for fix in fixes.prefix(fixes.count / 3) {
            if monitor.locationUpdatesEnabled { _ = try await planner.observe(fix) }
            for e in try monitor.process(fix) { _ = try await planner.handle(e) }
            let status = await planner.status
            if status.mode == .hybrid {
                sawHybrid = true
                #expect(status.locationUpdatesRequested && monitor.locationUpdatesEnabled)
                #expect(await !planner.softIdentifiers.isEmpty)
            }
            #expect(monitor.registeredIdentifiers.count <= 20)
        }
        #expect(sawHybrid)
        #expect(await planner.statistics.hybridSeconds > 0)
    }
}
