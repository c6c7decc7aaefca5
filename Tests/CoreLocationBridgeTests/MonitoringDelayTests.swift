import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner
import Testing

@testable import CoreLocationBridge

/// `CLError` 6 (`regionMonitoringSetupDelayed`) and 7 (`regionMonitoringResponseDelayed`): Core
/// Location keeps the region and its events still come.
@Suite("Codes 6 and 7: delayed is not refused")
struct MonitoringDelayTests {
    @Test(
        "a delayed region stays registered and counted, is reported as a delay, and its later events arrive",
        arguments: [MonitoringDelay.Kind.setup, .response])
    func delayedRegionStays(_ kind: MonitoringDelay.Kind) async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        let app = await CoreLocationApp.launch(on: system)
        var notices = app.backend.delayNotices.makeAsyncIterator()
        await app.manager.startMonitoring(for: circle("home"))
        try await app.drive(stay(at: offset(3_000), from: 0, through: 10))
        await system.reportDelay(kind, of: "home")
        await app.backend.settle()
        #expect(await notices.next() == MonitoringDelay(identifier: "home", kind: kind))
        #expect(await app.backend.delayedRegions == ["home": kind])
        #expect(await app.manager.monitoredRegions.map(\.identifier) == ["home"], "still in the table")
        #expect(!app.recorder.calls.contains { if case .fail = $0 { true } else { false } }, "not a failure")
        // Counted: 19 more fit, a 21st does not.
        for i in 0..<19 { await app.manager.startMonitoring(for: circle("r\(i)", north: -10_000 - Double(i) * 1_000)) }
        await app.manager.startMonitoring(for: circle("one-too-many", north: -50_000))
        await app.backend.settle()
        #expect(app.recorder.calls.contains(.fail("one-too-many", .regionMonitoringFailure(.limitExceeded(limit: 20)))))
        _ = app.recorder.take()
        // Time passes outside (a delayed setup starts, silent: the first state), then inside.
        try await app.drive([fix(11, offset(3_000)), fix(12, offset(3_000))])
        for f in stay(at: lyon, from: 15, through: 60) { try await system.move(to: f) }
        await app.backend.settle()
        #expect(app.recorder.calls.contains(.enter("home")), "its later events arrive")
        #expect(await app.backend.delayedRegions.isEmpty, "an event ends the delay")
    }

    @Test("a system that delays every setup: the planner's regions stay counted and its entries arrive")
    func plannerThroughDelayedSetups() async throws {
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        await system.setDelaysMonitoringSetup(true)
        let app = await CoreLocationApp.launch(on: system)
        let slots = await LocationManagerSlotMonitor(manager: app.manager)
        let source = PlannerSource(
            prefix: "s.", catalogue: try Catalogue([CatalogueEntry(region: RelaunchWiringTests.shop)]))
        let planner = try RegionPlanner(monitor: slots, sources: [source], sizing: RelaunchWiringTests.sizing)
        try await app.drive([fix(0, lyon)])
        try await planner.start(at: fix(0, lyon))
        await app.backend.settle()
        #expect(slots.takeFailures().isEmpty, "nothing refused")
        #expect(await slots.registeredIdentifiers.contains("s.shop"))
        #expect(await !app.backend.delayedRegions.isEmpty)
        var entered: [String] = []
        for s in stride(from: 5.0, through: 150, by: 5) {
            try await app.drive([fix(s, offset(s * 10))])
            for f in slots.takeLocations() { entered += try await planner.observe(f).map(\.identifier) }
            for e in await slots.takeEvents() {
                entered += try await planner.handle(e).filter { $0.kind == .enter }.map(\.identifier)
            }
        }
        #expect(entered == ["shop"])
    }

    @Test("codes 6 and 7 map both ways; a delay for a region never registered changes nothing")
    func codes() async {
        #expect(
            SystemError(code: 6) == .regionMonitoringSetupDelayed && SystemError.regionMonitoringSetupDelayed.code == 6)
        #expect(
            SystemError(code: 7) == .regionMonitoringResponseDelayed
                && SystemError.regionMonitoringResponseDelayed.code == 7)
        #expect(MonitoringDelay.Kind(.regionMonitoringFailure) == nil)
        let system = FakeCoreLocation(authorization: .authorizedAlways)
        await system.reportDelay(.setup, of: "nobody")
        #expect(await system.sent.isEmpty, "the fake reports delays only for regions it holds")
    }
}
