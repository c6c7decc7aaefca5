import DriveSupport
import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import Testing

@testable import RegionPlanner

/// The planner through the real adapters on the simulated device, in the device's order: the
/// device evaluates its regions with a fix, the app takes the events, then (when the planner
/// asks for updates) the position. The first 60 km of the clustered drive: three cities.
@Suite(.drive) struct DeviceOrderTests {
    struct Outcome {
        var reference: Set<EventKey>
        var planned: [EventKey]
        var hybridSeconds: Double
    }

    static let route: [LocationFix] = {
        let fixes = DriveEquivalenceTests.route1s.fixes
        return Array(fixes.prefix(2_200))
    }()

    static func reference(_ fixes: [LocationFix]) throws -> Set<EventKey> {
        var engine = Engine(policy: .coreLocation)
        try engine.add(contentsOf: Drive.clustered)
        var out = Set<EventKey>()
        for f in fixes {
            for e in try engine.process(f) where e.kind != .dwell {
                out.insert(EventKey(kind: e.kind, region: e.regionID, time: e.time))
            }
        }
        return out
    }

    static func device(start: Date) -> SimulatedDevice {
        var settings = DeviceSettings()
        settings.authorization = .authorizedAlways
        return SimulatedDevice(settings: settings, start: start)
    }

    static func keys(_ events: [PlannerEvent]) -> [EventKey] {
        events.filter { $0.kind != .dwell }.map { EventKey(kind: $0.kind, region: $0.identifier, time: $0.event.time) }
    }

    @Test("MonitorSlotMonitor on the simulated device, region events before positions: the engine's events")
    func monitorAdapter() async throws {
        let fixes = Self.route
        let device = Self.device(start: fixes[0].timestamp)
        let slots = await MonitorSlotMonitor(monitor: try await Monitor("drive", device: device))
        let planner = try RegionPlanner(
            monitor: slots, sources: [PlannerSource(prefix: "biz.", catalogue: Drive.clusteredCatalogue)],
            sizing: Drive.sizing1s, policy: .coreLocation)
        try await planner.start(at: fixes[0])
        var planned: [EventKey] = []
        for fix in fixes {
            try await device.receive(.fix(fix))
            for e in slots.takeEvents() { planned += Self.keys(try await planner.handle(e)) }
            if slots.locationUpdatesRequested { planned += Self.keys(try await planner.observe(fix)) }
        }
        let expected = try Self.reference(fixes)
        print(
            "[scenario] clustered, first 60 km, MonitorSlotMonitor, events before positions: \(expected.count) events, missed \(expected.subtracting(planned).count), extra \(Set(planned).subtracting(expected).count), hybrid \(Int(await planner.statistics.hybridSeconds)) s"
        )
        #expect(expected.count >= 300)
        #expect(
            Set(planned) == expected, "missed \(expected.subtracting(planned).sorted { $0.time < $1.time }.prefix(3))")
        #expect(planned.count == Set(planned).count, "none twice")
    }

    @Test(
        "LocationManagerSlotMonitor on the simulated device, region events before positions: the engine's entries and exits"
    )
    func locationManagerAdapter() async throws {
        let fixes = Self.route
        let device = Self.device(start: fixes[0].timestamp)
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(device: device))
        let planner = try RegionPlanner(
            monitor: slots, sources: [PlannerSource(prefix: "biz.", catalogue: Drive.clusteredCatalogue)],
            sizing: Drive.sizing1s, policy: .coreLocation)
        try await planner.start(at: fixes[0])
        var planned: [EventKey] = []
        for fix in fixes {
            try await device.receive(.fix(fix))
            // docs/ios.md's loop: the positions, then the events.
            for f in slots.takeLocations() { planned += Self.keys(try await planner.observe(f)) }
            for e in await slots.takeEvents() { planned += Self.keys(try await planner.handle(e)) }
        }
        let expected = try Self.reference(fixes)
        print(
            "[scenario] clustered, first 60 km, LocationManagerSlotMonitor, positions then events: \(expected.count) events, missed \(expected.subtracting(planned).count), extra \(Set(planned).subtracting(expected).count)"
        )
        #expect(
            Set(planned) == expected, "missed \(expected.subtracting(planned).sorted { $0.time < $1.time }.prefix(3))")
        #expect(planned.count == Set(planned).count, "none twice")
    }
}
