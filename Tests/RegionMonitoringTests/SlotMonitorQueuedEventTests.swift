import Foundation
import Geodesy
import Geofencing
import RegionPlanner
import Testing

@testable import RegionMonitoring

/// A phone evaluates its regions before the app gets the position, so the planner may
/// unregister a region at the very position that confirmed its event: the event is the app's
/// and must not leave with the region.
@Suite struct SlotMonitorQueuedEventTests {
    @Test("LocationManagerSlotMonitor: unregistering a region keeps its queued entry, still filtered by its flags")
    func locationManagerKeepsQueuedEvent() async throws {
        let device = makeDevice()
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(device: device))
        try await slots.register(.circle(identifier: "shop", center: paris, radius: 500))
        try await slots.register(
            .circle(identifier: "quiet", center: paris, radius: 500, notifyOnEntry: false, notifyOnExit: true))
        try await device.feed(walkIn())
        await slots.unregister(identifier: "shop")
        await slots.unregister(identifier: "quiet")
        let events = await slots.takeEvents()
        #expect(events.map(\.regionID) == ["shop"], "the entry confirmed before the removal; quiet asks for no entry")
        #expect(events.first?.kind == .enter)
        #expect(await slots.takeEvents().isEmpty, "taken once")
    }

    @Test("MonitorSlotMonitor: unregistering a region keeps its queued entry, still filtered by its flags")
    func monitorKeepsQueuedEvent() async throws {
        let device = makeDevice()
        let slots = await MonitorSlotMonitor(monitor: try await Monitor("m", device: device))
        try await slots.register(.circle(identifier: "shop", center: paris, radius: 500))
        try await slots.register(
            .circle(identifier: "quiet", center: paris, radius: 500, notifyOnEntry: false, notifyOnExit: true))
        try await device.feed(walkIn())
        await slots.unregister(identifier: "shop")
        await slots.unregister(identifier: "quiet")
        let events = slots.takeEvents()
        #expect(events.map(\.regionID) == ["shop"], "the entry confirmed before the removal; quiet asks for no entry")
        #expect(slots.takeEvents().isEmpty, "taken once")
    }
}
