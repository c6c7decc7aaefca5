import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

/// The seed scenarios, end to end, on replayed tracks at 100× with a manual clock.
@Suite("Scenarios")
struct ScenarioTests {
    /// A tall truck heads north toward a low railway bridge. A warning region a mile (1,609 m)
    /// before the bridge tells the driver in time to turn off; the truck detours east 800 m
    /// before the bridge and never reaches it.
    @Test("tall truck, low bridge: the warning is entered and left once, the bridge never, through the delegate API")
    func tallTruckLowBridge() async throws {
        let bridge = Coordinate(uncheckedLatitude: 35.9975, longitude: -78.9070)
        let south = { (m: Double) in offset(-m, 0, from: bridge) }
        let warningCenter = south(1_609)
        let route = ScriptedRoute(
            subject: "truck-7", start: t0,
            waypoints: [
                .init(south(4_000), speed: 15),
                .init(south(800), speed: 15), // the detour: turn east before the bridge
                .init(offset(-800, 3_000, from: bridge)),
            ])
        var errors = GPSErrorModel.gpsOnly
        errors.jumpProbability = 0.01
        let fixes = route.fixes(every: 1, errors: errors, seed: 2015)

        let device = SimulatedDevice(
            settings: {
                var s = DeviceSettings()
                s.authorization = .authorizedAlways
                s.appState = .background // the phone is in the cab, screen off
                return s
            }(), start: t0)
        let (manager, driver) = await manager(on: device)
        await manager.startMonitoring(
            for: CircularRegion(center: warningCenter, radius: 400, identifier: "bridge-warning"))
        await manager.startMonitoring(for: CircularRegion(center: bridge, radius: 300, identifier: "low-bridge"))
        #expect(driver.starts == ["bridge-warning", "low-bridge"])

        let clock = ManualClock(advancesOnSleep: true)
        let begin = clock.now
        try await device.run(
            TrackReplay(fixes, clock: clock, speed: .scaled(100), tickInterval: 1, trailingDuration: 60))

        #expect(driver.enters == ["bridge-warning"])
        #expect(driver.exits == ["bridge-warning"])
        #expect(driver.states == [.state("bridge-warning", .inside), .state("bridge-warning", .outside)])
        await manager.requestState(for: CircularRegion(center: bridge, radius: 300, identifier: "low-bridge"))
        #expect(driver.states.last == .state("low-bridge", .outside))
        #expect(await device.rejectedFixes.isEmpty)
        // 100×: the clock moved by the track's duration (plus trailing ticks) / 100.
        let trackSeconds = fixes.last!.timestamp.timeIntervalSince(t0) + 60
        let clockSeconds =
            Double(begin.duration(to: clock.now).components.seconds)
            + Double(begin.duration(to: clock.now).components.attoseconds) * 1e-18
        #expect(abs(clockSeconds - trackSeconds / 100) < 0.02)
    }

    @Test("tall truck without the detour: it stops at the bridge and the bridge region is entered too")
    func noDetour() async throws {
        let bridge = Coordinate(uncheckedLatitude: 35.9975, longitude: -78.9070)
        let route = ScriptedRoute(
            subject: "truck-7", start: t0,
            waypoints: [
                .init(offset(-4_000, 0, from: bridge), speed: 15),
                .init(bridge, pause: 120), // stuck under the bridge
            ])
        let device = makeDevice()
        let (manager, driver) = await manager(on: device)
        await manager.startMonitoring(
            for: CircularRegion(center: offset(-1_609, 0, from: bridge), radius: 400, identifier: "bridge-warning"))
        await manager.startMonitoring(for: CircularRegion(center: bridge, radius: 300, identifier: "low-bridge"))
        try await device.run(
            TrackReplay(
                route.fixes(every: 1, errors: .gpsOnly, seed: 11),
                clock: ManualClock(advancesOnSleep: true), speed: .scaled(100)))
        #expect(driver.enters == ["bridge-warning", "low-bridge"])
        #expect(driver.exits == ["bridge-warning"])
    }

    @Test("tall truck: the warning comes 20–60 s after the truck truly enters it, far ahead of the bridge")
    func warningTiming() async throws {
        let bridge = Coordinate(uncheckedLatitude: 35.9975, longitude: -78.9070)
        let warningCenter = offset(-1_609, 0, from: bridge)
        let route = ScriptedRoute(
            subject: "truck-7", start: t0,
            waypoints: [
                .init(offset(-4_000, 0, from: bridge), speed: 15), .init(offset(-800, 0, from: bridge)),
            ])
        let device = makeDevice()
        let monitor = try await Monitor("truck", device: device)
        await monitor.add(
            .circular(center: warningCenter, radius: 400), identifier: "bridge-warning", assuming: .unsatisfied)
        try await device.run(
            TrackReplay(
                route.fixes(every: 1, errors: .gpsOnly, seed: 7),
                clock: ManualClock(advancesOnSleep: true), speed: .scaled(100)))
        let events = await drain(monitor)
        let entry = try #require(events.first { $0.state == .satisfied })
        // True entry: 4,000 − 1,609 − 400 = 1,991 m at 15 m/s.
        let trueEntry = t0.addingTimeInterval(1_991 / 15)
        let delay = entry.date.timeIntervalSince(trueEntry)
        #expect(delay >= 20 && delay <= 60, "delay \(delay) s")
        let truckThen = route.truePosition(at: entry.date).coordinate
        #expect(Geodesic.wgs84.inverse(truckThen, bridge).distance > 1_000, "a detour is still possible")
    }

    /// The classic demo: a 2,000 m region in Shanghai, one simulated location outside, then
    /// the device inside.
    @Test("Shanghai: exactly one entry through the Monitor API, on a 100× replay")
    func shanghai() async throws {
        let center = Coordinate(uncheckedLatitude: 31.239394, longitude: 121.499781)
        let outside = Coordinate(uncheckedLatitude: 31.259394, longitude: 121.499781)
        let inside = Coordinate(uncheckedLatitude: 31.240394, longitude: 121.499781)
        let track = [fix(0, outside)] + stride(from: 10.0, through: 60, by: 5).map { fix($0, inside) }

        let device = makeDevice()
        let monitor = try await Monitor("shanghai", device: device)
        await monitor.add(.circular(center: center, radius: 2_000), identifier: "bund")
        let clock = ManualClock(advancesOnSleep: true)
        let begin = clock.now
        try await device.run(TrackReplay(track, clock: clock, speed: .scaled(100)))
        #expect(begin.duration(to: clock.now) == .milliseconds(600))

        let events = await drain(monitor)
        // One fix outside is not held for 20 s, so it decides nothing (rule 36): the first state
        // that counts is inside, reported because the condition was added as unknown.
        #expect(events.map(\.state) == [.satisfied], "one event: inside")
        #expect(events.first?.date == t0.addingTimeInterval(30), "confirmed 20 s after the first inside fix")
        #expect(events.allSatisfy { $0.identifier == "bund" && $0.diagnostics.isEmpty })
    }

    @Test("Shanghai, assuming outside: the only event is the entry")
    func shanghaiAssumingOutside() async throws {
        let center = Coordinate(uncheckedLatitude: 31.239394, longitude: 121.499781)
        let track =
            [fix(0, Coordinate(uncheckedLatitude: 31.259394, longitude: 121.499781))]
            + stride(from: 10.0, through: 60, by: 5).map {
                fix($0, Coordinate(uncheckedLatitude: 31.240394, longitude: 121.499781))
            }
        let device = makeDevice()
        let monitor = try await Monitor("shanghai", device: device)
        await monitor.add(.circular(center: center, radius: 2_000), identifier: "bund", assuming: .unsatisfied)
        try await device.run(TrackReplay(track, clock: ManualClock(advancesOnSleep: true), speed: .scaled(100)))
        #expect(await drain(monitor).map(\.state) == [.satisfied])
    }
}
