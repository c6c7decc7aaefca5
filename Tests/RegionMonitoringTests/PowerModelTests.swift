import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("Power model")
struct PowerModelTests {
    @Test("energy is the sum of counts times unit costs plus baseline power times duration")
    func linear() {
        var model = PowerModel()
        model.monitoringBaselineWatts = 0.01
        let usage = PowerUsage(gpsFixes: 7, networkFixes: 3, wakeUps: 5, uploads: 2, durationSeconds: 1_800)
        let c = model.unitCosts()
        let expected =
            7 * c.gpsFixJoules + 3 * c.networkFixJoules + 5 * c.wakeUpJoules + 2 * c.uploadJoules + 0.01 * 1_800
        let e = model.estimate(usage)
        #expect(abs(e.joules - expected) < 1e-9)
        #expect(abs(e.milliampHours - expected / 3.85 / 3.6) < 1e-9)
        #expect(abs(e.joulesPerHour - expected * 2) < 1e-9, "half an hour: twice per hour")
    }

    @Test("isolated work pays its full on-time; work repeated faster pays only the spacing")
    func spacing() {
        let model = PowerModel()
        let isolated = model.unitCosts()
        #expect(abs(isolated.gpsFixJoules - 0.155 * 10) < 1e-12)
        #expect(abs(isolated.uploadJoules - (0.1 + 0.77 * 10)) < 1e-12)
        #expect(abs(isolated.wakeUpJoules - 0.2 * 10) < 1e-12)
        let every2s = model.unitCosts(spacing: 2)
        #expect(abs(every2s.gpsFixJoules - 0.155 * 2) < 1e-12, "the receiver simply stays on")
        #expect(abs(every2s.uploadJoules - (0.1 + 0.77 * 2)) < 1e-12, "the radio never leaves its tail")
        #expect(model.unitCosts(spacing: 60) == isolated)
    }

    /// 20 circles of 300 m, 2 km apart due north; 10 m/s for 40 km.
    func scenario() -> PowerScenario {
        let regions = (0..<20).map {
            Region.circle(identifier: "p\($0)", center: offset(1_000 + Double($0) * 2_000), radius: 300)
        }
        let fixes = (0...4_000).map { fix(Double($0), offset(Double($0) * 10)) }
        return PowerScenario(name: "line", fixes: fixes, regions: regions, maximumSpeed: 12)
    }

    @Test("continuous reporting: one GPS fix, upload and delivery per interval; the server sees every place")
    func continuous() async throws {
        let r = try await PowerStrategyRunner.run(.continuousReporting(intervalSeconds: 10), on: scenario())
        #expect(r.usage.gpsFixes == 401)
        #expect(r.usage.uploads == 401 && r.usage.wakeUps == 401 && r.usage.networkFixes == 0)
        #expect(r.events == 40, "20 entries and 20 exits")
        let c = PowerModel().unitCosts(spacing: 10)
        #expect(abs(r.estimate.joules - 401 * (c.gpsFixJoules + c.uploadJoules + c.wakeUpJoules)) < 1e-6)
    }

    @Test("region monitoring: wake-ups and uploads only for events; far cheaper than continuous reporting")
    func monitored() async throws {
        let s = scenario()
        let continuous = try await PowerStrategyRunner.run(.continuousReporting(intervalSeconds: 10), on: s)
        let nearest = try await PowerStrategyRunner.run(.nearestRegions(slots: 5), on: s)
        #expect(nearest.events == 40, "the planner keeps every place in reach through 5 slots")
        #expect(nearest.replans > 1)
        #expect(nearest.usage.uploads == 40)
        #expect(nearest.usage.gpsFixes == nearest.replans - 1, "one fix asked for per re-plan after the first")
        #expect(nearest.usage.networkFixes == 4_000 / 120)
        // A re-plan's new regions report their first state once it has been held (20 s,
        // docs/monitoring.md rule 36), after the re-plan's 10 s wake window: one more wake-up.
        #expect(
            nearest.usage.wakeUps >= 40 && nearest.usage.wakeUps <= 40 + 2 * nearest.replans,
            "one per event, re-plan or re-plan's first determinations, fewer when they share a wake window")
        let c = PowerModel().unitCosts()
        let u = nearest.usage
        let recomputed =
            Double(u.gpsFixes) * c.gpsFixJoules + Double(u.networkFixes) * c.networkFixJoules
            + Double(u.wakeUps) * c.wakeUpJoules + Double(u.uploads) * c.uploadJoules
        #expect(abs(nearest.estimate.joules - recomputed) < 1e-6)
        #expect(nearest.estimate.joules < continuous.estimate.joules / 3)
        let tiered = try await PowerStrategyRunner.run(.tieredRegions(clusterMeters: 5_000), on: s)
        #expect(tiered.events == 40)
        #expect(tiered.downloads >= 1 && tiered.usage.uploads == 40 + tiered.downloads)
    }

    @Test("tiers: parents cover their children with a margin")
    func parents() {
        let regions = [
            Region.circle(identifier: "a", center: paris, radius: 100),
            Region.circle(identifier: "b", center: offset(1_000), radius: 50),
            Region.circle(identifier: "far", center: offset(20_000), radius: 50),
        ]
        let (parents, children) = PowerStrategyRunner.tiers(of: regions, clusterMeters: 3_000, margin: 300)
        #expect(parents.count == 2)
        #expect(children["parent-1"]?.map(\.identifier) == ["a", "b"])
        #expect(children["parent-2"]?.map(\.identifier) == ["far"])
        for p in parents {
            for child in children[p.identifier] ?? [] {
                guard case .circle(let c, let r) = child.region.shape else { continue }
                #expect(p.region.signedDistance(to: c) <= -(r + 300 - 1), "child \(child.identifier) well inside")
            }
        }
    }

    @Test("hybrid mode is priced as GPS on and the app awake for its duration")
    func hybridPricing() {
        let model = PowerModel()
        let base = PowerUsage(wakeUps: 2, durationSeconds: 3_600)
        var hybrid = base
        hybrid.continuousSeconds = 600
        let extra = model.estimate(hybrid).joules - model.estimate(base).joules
        #expect(abs(extra - 600 * (0.155 + 0.2)) < 1e-9)
    }
}
