import DriveSupport
import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// The order a phone delivers things in: Core Location evaluates its regions with a position
/// before the app gets that position, so a region event comes before the fix that caused it.
/// The planner must give the same events in either order.
@Suite(.drive) struct OrderEquivalenceTests {
    @Test(
        "clustered drive, region events delivered before their positions: exactly the whole-catalogue engine's events",
        arguments: [PlannerHarness.Delivery.eventsOnly, .everyFix])
    func clusteredEventsFirst(delivery: PlannerHarness.Delivery) async throws {
        let route = DriveEquivalenceTests.route1s
        var options = PlannerHarness.Options()
        options.order = .eventsFirst
        options.delivery = delivery
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(DriveEquivalenceTests.summary("clustered, 1 s, events before positions, \(delivery)", r))
        DriveEquivalenceTests.exact(r)
    }

    @Test(
        "clustered drive, the monitor evaluates each position, the app takes it, then the region events (docs/ios.md's loop): exact"
    )
    func clusteredEvaluatedFixFirst() async throws {
        let route = DriveEquivalenceTests.route1s
        var options = PlannerHarness.Options()
        options.order = .evaluatedFixFirst
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(DriveEquivalenceTests.summary("clustered, 1 s, evaluated, position, then events", r))
        DriveEquivalenceTests.exact(r)
    }

    @Test("clustered drive fed position first to a monitor that says it may see positions first: exact too")
    func clusteredPhoneRuleFixFirst() async throws {
        let route = DriveEquivalenceTests.route1s
        var options = PlannerHarness.Options()
        options.monitorMayEvaluateFirst = true
        let r = try await PlannerHarness.run(
            regions: Drive.clustered, catalogue: Drive.clusteredCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(DriveEquivalenceTests.summary("clustered, 1 s, positions first, phone rule", r))
        DriveEquivalenceTests.exact(r)
    }

    @Test("uniform drive with 5 km glitches, region events before their positions: exact")
    func uniformGlitchesEventsFirst() async throws {
        let base = DriveEquivalenceTests.route1s
        var rng = SplitMix64(seed: 41)
        let indices = (0..<40).map { _ in Int(rng.uniform(10, Double(base.fixes.count - 10))) }
        let route = Drive.withGlitches(base, at: indices)
        var options = PlannerHarness.Options()
        options.order = .eventsFirst
        let r = try await PlannerHarness.run(
            regions: Drive.uniform, catalogue: Drive.uniformCatalogue,
            fixes: route.fixes, kilometres: route.kilometres,
            policy: .coreLocation, sizing: Drive.sizing1s, options: options)
        print(DriveEquivalenceTests.summary("uniform, 1 s, 40 glitches, events before positions", r))
        DriveEquivalenceTests.exact(r)
    }
}
