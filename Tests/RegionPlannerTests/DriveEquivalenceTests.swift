import DriveSupport
import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import Testing

@testable import RegionPlanner

/// The guarantee on the 400 km drive through 200,000 circles: the planner with 20 slots (a
/// monitor that throws on the 21st registration) reports exactly the entries and exits — same
/// regions, same confirmation times, same estimated crossing times — of one engine holding the
/// whole catalogue, fed the same fixes. Each test prints churn, time in hybrid mode and the
/// power model's energy per hour (`swift test --filter DriveEquivalenceTests 2>&1 | grep scenario`).
@Suite(.drive) struct DriveEquivalenceTests {
    static func summary(_ name: String, _ r: PlannerHarness.Result) -> String {
        let usage = PowerUsage(
            gpsFixes: r.probeFixes,
            networkFixes: Int(r.durationSeconds / PowerModel().regionMonitoringFixInterval),
            wakeUps: r.wakeUps, uploads: r.planned.count, durationSeconds: r.durationSeconds,
            continuousSeconds: r.statistics.hybridSeconds)
        let e = PowerModel().estimate(usage)
        let s = r.statistics
        return "[scenario] \(name): \(String(format: "%.0f", r.kilometres)) km, \(r.reference.count) events, "
            + "missed \(r.missed.count), extra \(r.extra.count); churn \(String(format: "%.2f", r.churnPerKilometre))/km "
            + "(registrations \(s.registrations), removals \(s.removals), engine loads \(s.softLoads)); "
            + "hybrid \(String(format: "%.0f", s.hybridSeconds)) s = \(String(format: "%.1f", 100 * r.hybridShare)) % "
            + "(\(s.hybridEntries) entries); probes \(r.probeFixes), wake-ups \(r.wakeUps); "
            + "energy \(String(format: "%.0f", e.joulesPerHour)) J/h = \(String(format: "%.1f", e.milliampHoursPerHour)) mAh/h; "
            + "notices \(r.notices.count), max slots \(r.maximumRegistered)"
    }

    static func exact(_ r: PlannerHarness.Result, minimumEvents: Int = 100) {
        #expect(r.missed.isEmpty, "missed: \(r.missed.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.extra.isEmpty, "extra: \(r.extra.sorted { $0.time < $1.time }.prefix(5))")
        #expect(r.planned.count == r.reference.count, "no event twice")
        #expect(r.crossedAtDifferences == 0)
        #expect(r.reference.count >= minimumEvents, "the drive must cross regions")
        #expect(r.maximumRegistered <= 20)
        #expect(!r.stalledAtEnd)
    }

    /// The whole 400 km drive, a fix a second, through 20 cities.
    static let wholeRoute1s = Drive.route(interval: 1)
    /// The whole drive in the long tier (README, "Tests"); otherwise its first 110 km, five
    /// cities and the road between them: the same rules on a quarter of the fixes. Tests whose
    /// figures need all 20 cities take ``wholeRoute1s`` and belong to the long tier.
    static let route1s = LongTier.isEnabled ? wholeRoute1s : Drive.prefix(wholeRoute1s, 4_000, kilometres: 110)

    @Test("clustered catalogue, a fix every second: exactly the whole-catalogue engine's events", .longTier)
    func clusteredEverySecond() async throws {
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: Self.wholeRoute1s.fixes, kilometres: Self.wholeRoute1s.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s)
        print(Self.summary("clustered, 1 s, events only", r))
        Self.exact(r)
        #expect(r.statistics.hybridEntries >= 10, "the city centres need hybrid mode")
        #expect(r.hybridShare < 0.9, "and the open road does not")
    }

    @Test("uniform catalogue, a fix every second: exactly the whole-catalogue engine's events")
    func uniformEverySecond() async throws {
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: Self.route1s.fixes, kilometres: Self.route1s.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s)
        print(Self.summary("uniform, 1 s, events only", r))
        Self.exact(r)
    }

    @Test("clustered catalogue, a fix every 60 s: exactly the whole-catalogue engine's events")
    func clusteredEveryMinute() async throws {
        let route = Drive.route(interval: 60)
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing60s)
        print(Self.summary("clustered, 60 s, events only", r))
        Self.exact(r, minimumEvents: 20)
    }

    @Test("fixes every 60 s while the sizing states 1 s: the planner says so, adapts, and never stalls")
    func statedIntervalTooShort() async throws {
        let route = Drive.route(interval: 60)
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: .init(delivery: .everyFix))
        print(Self.summary("uniform, 60 s, stated 1 s, every fix", r))
        #expect(
            r.notices.contains { if case .conditionBroken(.fixIntervalExceeded(60, 1), _) = $0 { true } else { false } }
        )
        #expect(!r.stalledAtEnd)
        #expect(r.missed.count + r.extra.count <= 2, "only the first interval is under-sized")
    }

    @Test("a 10-minute gap: with the fixes delivered, exactly the whole-catalogue engine's events", .longTier)
    func gapWithFixes() async throws {
        let route = Drive.withGap(Self.wholeRoute1s)
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: .init(delivery: .everyFix))
        print(Self.summary("clustered, 1 s, 10 min gap, every fix", r))
        Self.exact(r)
        #expect(r.notices.contains { if case .conditionBroken(.gap, _) = $0 { true } else { false } })
    }

    @Test("a 10-minute gap with region events only: planning resumes at the newest fix and the breach is reported")
    func gapEventsOnly() async throws {
        let route = Drive.withGap(Self.route1s)
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s)
        print(Self.summary("uniform, 1 s, 10 min gap, events only", r))
        #expect(!r.stalledAtEnd)
        #expect(r.notices.contains { if case .conditionBroken(.planOvertaken, _) = $0 { true } else { false } })
        // Events after the gap's first few minutes are all there again.
        let resume = route.fixes[Int(Double(route.fixes.count) * 0.3) + 300].timestamp
        #expect(r.missed.filter { $0.time > resume }.isEmpty)
        #expect(r.extra.filter { $0.time > resume }.isEmpty)
    }

    @Test(
        "5 km glitches, on fixes that confirm a re-plan exit and elsewhere: exactly the whole-catalogue engine's events"
    )
    func glitches() async throws {
        let clean = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: Self.route1s.fixes, kilometres: Self.route1s.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s)
        let confirming = stride(from: 2, to: clean.replanExitIndices.count, by: 7).map { clean.replanExitIndices[$0] }
        try #require(confirming.count >= 5)
        var rng = SplitMix64(seed: 41)
        let random = (0..<30).map { _ in Int(rng.next() % UInt64(Self.route1s.fixes.count)) }
        let route = Drive.withGlitches(Self.route1s, at: confirming + random)
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s)
        print(Self.summary("uniform, 1 s, 5 km glitches (\(confirming.count) on re-plan exits), events only", r))
        Self.exact(r)
        #expect(Set(r.replanExitIndices).intersection(confirming).count >= 3, "glitches did land on confirming fixes")
        #expect(r.statistics.glitchesRejected > 0)
    }

    @Test("a relaunch mid-drive (planner discarded, monitor kept) continues with no missed or repeated event")
    func relaunch() async throws {
        let n = Self.route1s.fixes.count
        var options = PlannerHarness.Options()
        options.relaunchInSlotMode = [n / 5, n / 2, 4 * n / 5]
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: Self.route1s.fixes, kilometres: Self.route1s.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(
            Self.summary("uniform, 1 s, three relaunches, events only", r) + ", relaunched before \(r.relaunchedBefore)"
        )
        #expect(r.relaunchedBefore.count == 3)
        Self.exact(r)
    }

    @Test(
        "regions added just ahead, around the subject, replaced, and removed while inside: the same events as an engine given the same edits",
        .longTier)
    func liveEdits() async throws {
        let fixes = Self.wholeRoute1s.fixes
        func ahead(_ i: Int, _ id: String, radius: Double, trigger: InitialTrigger = []) -> Region {
            var r = Region.circle(identifier: id, center: fixes[i].coordinate, radius: radius)
            r.initialTrigger = trigger
            return r
        }
        var options = PlannerHarness.Options()
        var edits: [Int: [PlannerHarness.Edit]] = [:]
        for (k, i) in stride(from: 600, to: fixes.count - 400, by: 1_100).enumerated() {
            edits[i, default: []].append(
                .add([
                    ahead(i + 40, "ahead-1k-\(k)", radius: 150), // ~1 km ahead
                    ahead(i + 110, "ahead-3k-\(k)", radius: 400), // ~3 km ahead
                    ahead(i, "around-\(k)", radius: 600), // around the subject: silent
                    ahead(i, "around-told-\(k)", radius: 600, trigger: .enter), // around, asking for the entry
                    ahead(i + 200, "big-\(k)", radius: 1_500), // entered, then removed while inside
                ]))
            edits[i + 30, default: []].append(.add([ahead(i + 40, "ahead-1k-\(k)", radius: 250)])) // replaced
            edits[i + 35, default: []].append(.add([ahead(i + 40, "ahead-1k-\(k)", radius: 250)])) // unchanged
            edits[i + 230, default: []].append(.remove(["big-\(k)"]))
        }
        edits[fixes.count / 2, default: []].append(.removePrefix("u19"))
        options.edits = edits
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: fixes, kilometres: Self.wholeRoute1s.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(Self.summary("uniform, 1 s, live edits, events only", r))
        Self.exact(r)
        let added = r.reference.filter { $0.region.hasPrefix("ahead-") || $0.region.hasPrefix("around-told-") }
        #expect(added.count >= 10, "the added regions were crossed")
        #expect(r.reference.contains { $0.region.hasPrefix("around-told-") && $0.kind == .enter })
        #expect(
            !r.reference.contains {
                $0.region.hasPrefix("around-") && !$0.region.hasPrefix("around-told-") && $0.kind == .enter
            })
        #expect(
            !r.reference.contains { $0.region.hasPrefix("big-") && $0.kind == .exit }, "removed while inside: no exit")
        #expect(r.reference.contains { $0.region.hasPrefix("big-") && $0.kind == .enter })
    }
}
