import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// Late region events (Core Location: "typically within 3–5 minutes"): within the stated
/// latency the planner gives the whole-catalogue engine's events exactly; beyond it, it says so
/// (docs/planner.md, "Event latency").
@Suite(.drive) struct LatencyTests {
    /// The clustered drive's first 110 km (five cities and the road between them), a fix a
    /// second with GPS-grade noise (±10 m claimed, as ``GPSWhereNeededTests``).
    static let route: Drive.Route = {
        var r = Drive.route(interval: 1, seed: 11, sigma: 3, claimedAccuracy: 10)
        r.fixes = Array(r.fixes.prefix(4_000))
        r.kilometres = 110
        return r
    }()
    static let sizing = ReplanSizing(
        policy: .coreLocation, largestRegionSize: 2_000, maximumSpeed: 40, maximumFixInterval: 1,
        maximumAccuracy: 10)

    static func run(
        stated: Double, delays: ClosedRange<Double>, significantChanges: Bool = false,
        delivery: PlannerHarness.Delivery = .eventsOnly
    ) async throws -> PlannerHarness.Result {
        var options = PlannerHarness.Options()
        options.eventDelay = delays
        options.eventDelaySeed = 31
        options.statedEventLatency = stated
        options.significantChanges = significantChanges
        options.delivery = delivery
        return try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue, fixes: route.fixes,
            kilometres: route.kilometres, policy: .coreLocation, sizing: sizing, options: options)
    }

    /// The latency notices: when each was raised, and since when events may have been missed.
    static func latencyNotices(_ r: PlannerHarness.Result) -> [(at: Date, since: Date)] {
        r.notices.compactMap {
            switch $0 {
            case .conditionBroken(.eventLatencyExceeded(let late, _), let t): (t, t.addingTimeInterval(-late))
            case .conditionBroken(.exitOverdue, let t): (t, t)
            default: nil
            }
        }
    }

    @Test("the sizing covers the travel during the stated latency")
    func travelAllowanceCoversLatency() {
        let sizing = Self.sizing
        let late = sizing.adapted(toEventLatency: 300)
        #expect(late.travelAllowance == sizing.travelAllowance + 40 * 300)
        #expect(late.adapted(toEventLatency: 60) == late, "the longer latency holds")
        #expect(late.adapted(toSpeed: 80).eventLatency == 300, "adaptations keep the latency")
        #expect(late.adapted(toFixInterval: 10).eventLatency == 300)
        let near = 2_000.0
        #expect(sizing.radius(nearestUnregistered: near) != nil)
        #expect(late.radius(nearestUnregistered: near) == nil, "12 km of travel: too close for slot mode")
    }

    @Test("the planner sizes for the monitor's stated latency, the longer of it and the sizing's")
    func monitorLatencyInForce() async throws {
        // City 0's first 100 regions, about 20 km from the drive's first fix.
        let catalogue = try Catalogue(Drive.clustered.prefix(100).map { CatalogueEntry(region: $0) })
        func status(monitorLatency: Double) async throws -> PlannerStatus {
            let monitor = EngineSlotMonitor(subject: "car", policy: .coreLocation, eventLatency: monitorLatency)
            let planner = try RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "biz.", catalogue: catalogue)], sizing: Self.sizing)
            try await planner.start(at: Self.route.fixes[0])
            return await planner.status
        }
        let prompt = try await status(monitorLatency: 0)
        #expect(prompt.effectiveEventLatency == 0 && prompt.mode == .slots)
        let late = try await status(monitorLatency: 600)
        #expect(late.effectiveEventLatency == 600)
        #expect(late.mode == .hybrid, "24 km of travel in 600 s at 40 m/s: the slots cannot cover it")
    }

    @Test("a late event is reported once, then planned for: the learned latency survives a relaunch and is capped")
    func learnedLatency() async throws {
        let catalogue = try Catalogue(Drive.clustered.prefix(100).map { CatalogueEntry(region: $0) })
        let monitor = EngineSlotMonitor(subject: "car", policy: .coreLocation)
        let store = MemoryPlannerStore()
        func planner() throws -> RegionPlanner<EngineSlotMonitor> {
            try RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "biz.", catalogue: catalogue)], sizing: Self.sizing,
                store: store)
        }
        let fixes = Self.route.fixes
        let first = try planner()
        try await first.start(at: fixes[0])
        _ = try await first.observe(fixes[200])
        // An event confirmed at the first fix reaches the app when it already holds a position
        // 200 s later.
        func late(_ id: String, confirmedAt fix: LocationFix) -> TransitionEvent {
            TransitionEvent(
                kind: .exit, regionID: id, subject: "car", fix: fix, time: fix.timestamp, crossedAt: fix.timestamp)
        }
        _ = try await first.handle(late("biz.nowhere", confirmedAt: fixes[0]))
        var notices = await first.takeNotices().filter {
            if case .conditionBroken(.eventLatencyExceeded, _) = $0 { true } else { false }
        }
        #expect(notices.count == 1)
        #expect(await first.status.effectiveEventLatency == 200)
        let relaunched = try planner()
        #expect(try await relaunched.restore())
        #expect(await relaunched.status.effectiveEventLatency == 200, "saved with the plan")
        // As late again: planned for, not reported.
        _ = try await relaunched.handle(late("biz.nowhere", confirmedAt: fixes[1]))
        notices = await relaunched.takeNotices().filter {
            if case .conditionBroken(.eventLatencyExceeded, _) = $0 { true } else { false }
        }
        #expect(notices.isEmpty)
        // A device that slept an hour: reported, and sized for no more than the cap.
        let hourLater = fixes[200].timestamp.addingTimeInterval(3_600)
        var woken = fixes[200]
        woken.timestamp = hourLater
        let asleep = try RegionPlanner(
            monitor: EngineSlotMonitor(subject: "car", policy: .coreLocation),
            sources: [PlannerSource(prefix: "biz.", catalogue: catalogue)], sizing: Self.sizing, now: { hourLater })
        try await asleep.start(at: fixes[0])
        _ = try await asleep.observe(woken)
        _ = try await asleep.handle(late("biz.nowhere", confirmedAt: fixes[0]))
        #expect(await asleep.status.effectiveEventLatency == RegionPlanner<EngineSlotMonitor>.learnedLatencyCap)
    }

    @Test(
        "what late events taught fades a day after the last one, keeps its clock across a relaunch, and is kept while events stay late"
    )
    func learnedLatencyFades() async throws {
        let catalogue = try Catalogue(Drive.clustered.prefix(100).map { CatalogueEntry(region: $0) })
        let store = MemoryPlannerStore()
        let clock = ManualClock()
        let fixes = Self.route.fixes
        let day = RegionPlanner<EngineSlotMonitor>.learnedLatencyLifetime
        func planner() throws -> RegionPlanner<EngineSlotMonitor> {
            try RegionPlanner(
                monitor: EngineSlotMonitor(subject: "car", policy: .coreLocation),
                sources: [PlannerSource(prefix: "biz.", catalogue: catalogue)], sizing: Self.sizing, store: store,
                now: { clock.now })
        }
        func late(confirmedAt fix: LocationFix) -> TransitionEvent {
            TransitionEvent(
                kind: .exit, regionID: "biz.nowhere", subject: "car", fix: fix, time: fix.timestamp,
                crossedAt: fix.timestamp)
        }
        func latencyNotices(_ p: RegionPlanner<EngineSlotMonitor>) async -> Int {
            await p.takeNotices().filter {
                if case .conditionBroken(.eventLatencyExceeded, _) = $0 { true } else { false }
            }.count
        }
        let t0 = fixes[200].timestamp
        clock.now = t0
        let first = try planner()
        try await first.start(at: fixes[0])
        _ = try await first.observe(fixes[200])
        _ = try await first.handle(late(confirmedAt: fixes[0])) // 200 s late
        #expect(await latencyNotices(first) == 1)
        clock.now = t0 + day - 3_600
        #expect(await first.status.effectiveEventLatency == 200, "held for a day")
        // 100 s late: within what was learned, so not reported, but lateness goes on: the day
        // starts again.
        _ = try await first.handle(late(confirmedAt: fixes[100]))
        #expect(await latencyNotices(first) == 0)
        clock.now = t0 + 1.7 * day
        let relaunched = try planner()
        #expect(try await relaunched.restore())
        #expect(await relaunched.status.effectiveEventLatency == 200, "the second late event's day, saved")
        clock.now = t0 + 2 * day
        #expect(await relaunched.status.effectiveEventLatency == 0, "a day without a late event: forgotten")
        // Late again, less so: reported against the stated latency and learned afresh, not the old 200 s.
        _ = try await relaunched.handle(late(confirmedAt: fixes[150]))
        #expect(await latencyNotices(relaunched) == 1)
        #expect(await relaunched.status.effectiveEventLatency == 50)

        // A snapshot saved before the learned latency faded has no clock: it holds a day from the restore.
        var old = try #require(await store.snapshot)
        old.learnedEventLatency = 300
        old.learnedEventLatencyAt = nil
        await store.save(old)
        clock.now = t0 + 10 * day
        let upgraded = try planner()
        #expect(try await upgraded.restore())
        #expect(await upgraded.status.effectiveEventLatency == 300)
        clock.now = t0 + 11 * day
        #expect(await upgraded.status.effectiveEventLatency == 0)
    }

    @Test("a negative or unbounded latency is refused, naming the field", arguments: [-1, .nan, .infinity])
    func absurdLatency(_ latency: Double) throws {
        let catalogue = try Catalogue([CatalogueEntry(region: Drive.clustered[0])])
        func field(sizing: Double, monitor: Double) -> String? {
            var stated = Self.sizing
            stated.eventLatency = sizing
            let error = #expect(throws: PlannerError.self) {
                _ = try RegionPlanner(
                    monitor: EngineSlotMonitor(subject: "car", policy: .coreLocation, eventLatency: monitor),
                    sources: [PlannerSource(prefix: "biz.", catalogue: catalogue)], sizing: stated)
            }
            guard case .invalidConfiguration(let field, _) = error else { return nil }
            return field
        }
        #expect(field(sizing: latency, monitor: 0) == "sizing.eventLatency")
        #expect(field(sizing: 0, monitor: latency) == "monitor.eventLatency")
    }

    @Test("events up to 5 minutes late, Core Location's stated 300 s: exact")
    func fiveMinutesWithinStatedLatency() async throws {
        let r = try await Self.run(stated: ReplanSizing.coreLocationEventLatency, delays: 0...300)
        print(DriveEquivalenceTests.summary("clustered 110 km, events ≤ 300 s late, 300 s stated", r))
        DriveEquivalenceTests.exact(r)
        #expect(Self.latencyNotices(r).isEmpty, "no event was later than stated")
    }

    @Test("events up to 30 s late, 30 s stated: exact, with slot mode on the open road")
    func halfMinuteWithinStatedLatency() async throws {
        let r = try await Self.run(stated: 30, delays: 0...30)
        print(DriveEquivalenceTests.summary("clustered 110 km, ±10 m, events ≤ 30 s late, 30 s stated", r))
        DriveEquivalenceTests.exact(r)
        #expect(Self.latencyNotices(r).isEmpty)
        #expect(r.hybridShare < 0.95, "the latency term leaves room for slots: \(r.hybridShare)")
        #expect(r.replanExitIndices.count >= 5, "re-plans were driven by late exits")
    }

    /// The negative control: Core Location's late events with no latency stated (the sizing
    /// before the latency term) miss events, and say so. (30 s of delay does not: the 40 m/s
    /// bound leaves that much slack at the drive's 28 m/s.)
    @Test("events up to 5 minutes late, none stated: misses, reported")
    func fiveMinutesUnstated() async throws {
        let r = try await Self.run(stated: 0, delays: 0...300)
        print(
            DriveEquivalenceTests.summary("clustered 110 km, ±10 m, events ≤ 300 s late, 0 s stated", r)
                + "; latency notices \(Self.latencyNotices(r).count)")
        #expect(!r.missed.isEmpty, "the latency term is what keeps the events exact")
        #expect(!Self.latencyNotices(r).isEmpty)
    }

    /// Events beyond the stated latency, an app that gets region events and
    /// significant-location-change fixes: whatever differs from the whole-catalogue engine
    /// either lies in a window a notice reports — from the late event's confirmation to the
    /// position that showed it late, plus the confirmation of a region entered meanwhile — or
    /// comes after a notice; and after the first notice the planner sizes for the lateness it
    /// saw, so later late events cost little.
    @Test("events up to 5 minutes late, 30 s stated: every difference reported, in its window or after a notice")
    func beyondStatedLatency() async throws {
        let r = try await Self.run(stated: 30, delays: 0...300, significantChanges: true)
        let notices = Self.latencyNotices(r)
        let differences = r.missed.union(r.extra)
        let first = notices.map(\.at).min() ?? .distantFuture
        let beforeAnyNotice = differences.filter { $0.time < first }.count
        print(
            DriveEquivalenceTests.summary("clustered 110 km, ±10 m, events ≤ 300 s late, 30 s stated", r)
                + "; latency notices \(notices.count), significant-change fixes \(r.significantChangeFixes); "
                + "differences before the first notice \(beforeAnyNotice)")
        #expect(!notices.isEmpty, "late events are reported")
        let settle = Self.sizing.confirmationTime + 3 * Self.sizing.maximumFixInterval
        for e in differences {
            let reported = notices.contains { $0.since <= e.time && e.time <= $0.at.addingTimeInterval(settle) }
            #expect(reported || e.time >= first, "\(e) in no reported window; notices \(notices)")
        }
        // Learning the lateness: the same drive made 12 misses and 8 extra events when every
        // plan kept the stated 30 s (docs/planner.md, "Event latency").
        #expect(differences.count <= 10, "\(r.missed.count) missed, \(r.extra.count) extra")
    }

    /// The same late events, an app that gets every fix (a navigation app): the position past
    /// the exit bound re-plans before any unregistered region is reached.
    @Test("events up to 5 minutes late, 30 s stated, every fix to the app: reported, exact")
    func beyondStatedLatencyEveryFix() async throws {
        let r = try await Self.run(stated: 30, delays: 0...300, delivery: .everyFix)
        print(
            DriveEquivalenceTests.summary("clustered 110 km, ±10 m, events ≤ 300 s late, 30 s stated, every fix", r)
                + "; latency notices \(Self.latencyNotices(r).count)")
        DriveEquivalenceTests.exact(r)
        #expect(!Self.latencyNotices(r).isEmpty)
    }
}
