import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("LocationManager")
struct LocationManagerTests {
    @Test("entering and leaving a region calls didEnterRegion, didExitRegion and didDetermineState")
    func enterExit() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("cafe"))
        #expect(rec.starts == ["cafe"])
        try await device.feed(walkIn() + walkOut())
        #expect(rec.enters == ["cafe"])
        #expect(rec.exits == ["cafe"])
        #expect(rec.states == [.state("cafe", .inside), .state("cafe", .outside)])
    }

    @Test("no event for a region the device is already in, until requestState")
    func alreadyInside() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("home"))
        try await device.feed(stride(from: 0.0, through: 60, by: 5).map { fix($0, paris) })
        #expect(rec.enters.isEmpty)
        #expect(rec.states.isEmpty)
        await m.requestState(for: region("home"))
        #expect(rec.states == [.state("home", .inside)])
    }

    @Test("requestState answers unknown at once for an unmonitored region; before any fix it waits for the state")
    func requestStateUnknown() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        await m.requestState(for: region("a"))
        await m.requestState(for: region("never-added"))
        #expect(rec.states == [.state("never-added", .unknown)])
        try await device.feed(stay(at: offset(1_000), from: 0, through: 25))
        #expect(rec.states == [.state("never-added", .unknown), .state("a", .outside)], "answered once known")
    }

    @Test("notifyOnEntry false: no didEnterRegion, but didDetermineState still reports the transition")
    func notifyFlags() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("quiet", entry: false, exit: true))
        try await device.feed(walkIn() + walkOut())
        #expect(rec.enters.isEmpty)
        #expect(rec.exits == ["quiet"])
        #expect(rec.states == [.state("quiet", .inside), .state("quiet", .outside)])
    }

    @Test("starting a region with an existing identifier replaces it and resets its state")
    func replaceByIdentifier() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("spot", radius: 500))
        try await device.feed(walkIn())
        #expect(rec.enters == ["spot"])
        let elsewhere = offset(5_000, 5_000)
        await m.startMonitoring(for: region("spot", at: elsewhere, radius: 300))
        let regions = await m.monitoredRegions
        #expect(regions.count == 1)
        #expect(regions.first?.radius == 300)
        let before = rec.states
        await m.requestState(for: region("spot"))
        #expect(rec.states == before, "replacement starts afresh: its state is not known yet")
        try await device.feed(walkIn(start: 100, origin: elsewhere))
        #expect(rec.enters == ["spot", "spot"])
        #expect(
            rec.states.suffix(2) == [.state("spot", .outside), .state("spot", .inside)],
            "the request is answered once the new region's state is known, then the entry")
    }

    @Test("stopMonitoring means no more events; stopping an unknown region does nothing")
    func stop() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        await m.startMonitoring(for: region("b", at: offset(3_000)))
        await m.stopMonitoring(for: region("a"))
        await m.stopMonitoring(for: region("zzz"))
        #expect(await m.monitoredRegions.map(\.identifier) == ["b"])
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty)
        #expect(rec.calls.allSatisfy { if case .fail = $0 { false } else { true } })
    }

    @Test("regions are shared by every manager of the app, and events reach every delegate")
    func sharedRegions() async throws {
        let device = makeDevice()
        let (m1, r1) = await manager(on: device)
        let (m2, r2) = await manager(on: device)
        await m1.startMonitoring(for: region("shared"))
        #expect(await m2.monitoredRegions.map(\.identifier) == ["shared"])
        try await device.feed(walkIn())
        #expect(r1.enters == ["shared"])
        #expect(r2.enters == ["shared"])
    }

    @Test("regions outlive the manager: a relaunched app's new manager finds them and gets their events")
    func regionsPersistAcrossManagers() async throws {
        let device = makeDevice()
        do {
            let (m, _) = await manager(on: device)
            await m.startMonitoring(for: region("depot"))
        }
        let (relaunched, rec) = await manager(on: device)
        #expect(await relaunched.monitoredRegions.map(\.identifier) == ["depot"])
        try await device.feed(walkIn())
        #expect(rec.enters == ["depot"])
    }

    @Test("the 21st region fails with the limit error and the first 20 keep working")
    func perAppLimit() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        for i in 0..<20 { await m.startMonitoring(for: region("r\(i)", at: offset(Double(i) * 5_000, 20_000))) }
        await m.startMonitoring(for: region("r20", at: paris))
        #expect(rec.failures == [.fail("r20", .regionMonitoringFailure(.limitExceeded(limit: 20)))])
        #expect(await m.monitoredRegions.count == 20)
        try await device.feed(walkIn())
        #expect(rec.enters.isEmpty, "the 21st is not monitored")
        try await device.feed(walkIn(start: 100, origin: offset(5_000, 20_000)))
        #expect(rec.enters == ["r1"], "the first 20 keep working")
        // Replacing an existing identifier at the limit is not a 21st region.
        await m.startMonitoring(for: region("r0", at: offset(0, 20_000), radius: 400))
        #expect(rec.failures.count == 1)
    }

    @Test("the per-app limit is configurable")
    func configurableLimit() async {
        let device = makeDevice { $0.regionLimit = 2 }
        let (m, rec) = await manager(on: device)
        for i in 0..<3 { await m.startMonitoring(for: region("r\(i)", at: offset(Double(i) * 5_000))) }
        #expect(rec.failures == [.fail("r2", .regionMonitoringFailure(.limitExceeded(limit: 2)))])
    }

    @Test("a radius above maximumRegionMonitoringDistance fails with regionMonitoringFailure")
    func radiusTooLarge() async {
        let device = makeDevice { $0.maximumRegionMonitoringDistance = 10_000 }
        let (m, rec) = await manager(on: device)
        #expect(await m.maximumRegionMonitoringDistance == 10_000)
        await m.startMonitoring(for: region("huge", radius: 10_001))
        await m.startMonitoring(for: region("ok", radius: 10_000))
        #expect(
            rec.failures == [.fail("huge", .regionMonitoringFailure(.radiusTooLarge(radius: 10_001, maximum: 10_000)))])
        #expect(await m.monitoredRegions.map(\.identifier) == ["ok"])
    }

    @Test("without hardware, maximumRegionMonitoringDistance is -1 and monitoring fails")
    func noHardware() async {
        let device = makeDevice { $0.hasLocationHardware = false }
        let (m, rec) = await manager(on: device)
        #expect(await m.maximumRegionMonitoringDistance == -1)
        await m.startMonitoring(for: region("x"))
        #expect(rec.failures == [.fail("x", .regionMonitoringFailure(.unavailable))])
    }

    @Test("an invalid region fails with a typed error naming the field, and is not registered")
    func invalidRegion() async {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("neg", radius: -5))
        guard
            case .fail("neg", .regionMonitoringFailure(.invalidRegion(.invalidRegion(_, let field, _)))) = rec.failures
                .first
        else {
            Issue.record("expected an invalid-region failure, got \(rec.calls)")
            return
        }
        #expect(field == "radius")
        #expect(await m.monitoredRegions.isEmpty)
    }

    @Test("a polygon region is monitored like a circle")
    func polygonMonitoring() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        let ring = [offset(-600, -600), offset(-600, 600), offset(600, 600), offset(600, -600)]
        await m.startMonitoring(for: PolygonRegion(exterior: ring, identifier: "square"))
        try await device.feed(
            walkIn(start: 0) + walkOut().map { fix($0.timestamp.timeIntervalSince(t0), offset(1_500)) })
        #expect(rec.enters == ["square"])
        #expect(rec.exits == ["square"])
    }

    @Test("a bad or out-of-order fix is rejected with a typed error and changes nothing")
    func rejectedFix() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        try await device.feed(walkIn())
        await #expect(throws: GeofencingError.self) { try await device.receive(.fix(fix(1, offset(2_000)))) }
        #expect(await device.rejectedFixes.count == 1)
        await m.requestState(for: region("a"))
        #expect(rec.states.last == .state("a", .inside))
    }

    @Test("a tick confirms a pending entry between fixes, dated by the confirmation time")
    func tickConfirms() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        // Four deciding fixes from t = 10 (coreLocation: 20 s) confirm at t = 30.
        try await device.feed(
            stay(at: offset(1_000), from: -20, through: 0) + [
                fix(10, paris), fix(12, paris), fix(13, paris), fix(15, paris),
            ])
        #expect(rec.enters.isEmpty)
        try await device.receive(.tick(t0.addingTimeInterval(29)))
        #expect(rec.enters.isEmpty)
        try await device.receive(.tick(t0.addingTimeInterval(30)))
        #expect(rec.enters == ["a"])
    }
}
