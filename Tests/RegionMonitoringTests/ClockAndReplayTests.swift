import Foundation
import GeoFormats
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("Manual clock")
struct ManualClockTests {
    @Test("sleepers wake only when time is advanced past their deadline, earliest first")
    func manualAdvance() async throws {
        let clock = ManualClock()
        let order = OrderLog()
        let start = clock.now
        let a = Task {
            try await clock.sleep(until: start.advanced(by: .seconds(10)))
            order.add("a")
        }
        let b = Task {
            try await clock.sleep(until: start.advanced(by: .seconds(5)))
            order.add("b")
        }
        await clock.waitForSleepers(atLeast: 2)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 2)
        clock.advance(by: .seconds(6))
        try await a.value
        try await b.value
        #expect(order.items == ["b", "a"])
        #expect(start.duration(to: clock.now) == .seconds(10))
    }

    @Test("a cancelled sleeper throws CancellationError and leaves the clock")
    func cancellation() async throws {
        let clock = ManualClock()
        let t = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(60))) }
        await clock.waitForSleepers(atLeast: 1)
        t.cancel()
        await #expect(throws: CancellationError.self) { try await t.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test(
        "a task already cancelled when it sleeps throws at once, without waiting for the clock",
        .timeLimit(.minutes(1)))
    func cancelledBeforeRegistering() async throws {
        let clock = ManualClock()
        let t = Task {
            withUnsafeCurrentTask { $0?.cancel() } // cancelled before its sleeper exists
            try await clock.sleep(until: clock.now.advanced(by: .seconds(60)))
        }
        await #expect(throws: CancellationError.self) { try await t.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("advancesOnSleep jumps to each deadline without waiting")
    func virtualTime() async throws {
        let clock = ManualClock(advancesOnSleep: true)
        let start = clock.now
        try await clock.sleep(for: .seconds(3_600))
        #expect(start.duration(to: clock.now) == .seconds(3_600))
    }
}

final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [String] = []
    func add(_ s: String) { lock.withLock { log.append(s) } }
    var items: [String] { lock.withLock { log } }
}

@Suite("Track replay")
struct TrackReplayTests {
    let fixes = [fix(0, paris), fix(10, offset(10)), fix(25, offset(20))]

    @Test("at 100× the clock advances by track time / 100, with ticks between fixes")
    func scaled() async throws {
        let clock = ManualClock(advancesOnSleep: true)
        let start = clock.now
        var updates: [LocationUpdate] = []
        var clockAt: [Duration] = []
        for try await u in TrackReplay(fixes, clock: clock, speed: .scaled(100), tickInterval: 5) {
            updates.append(u)
            clockAt.append(start.duration(to: clock.now))
        }
        #expect(updates.map { $0.date.timeIntervalSince(t0) } == [0, 5, 10, 15, 20, 25])
        #expect(updates.map { if case .fix = $0 { "f" } else { "t" } } == ["f", "t", "f", "t", "t", "f"])
        #expect(clockAt.last == .milliseconds(250))
        #expect(clockAt[2] == .milliseconds(100))
    }

    @Test("at 10× and at real time the schedule scales accordingly")
    func otherSpeeds() async throws {
        for (speed, expected) in [
            (TrackReplay<ManualClock>.Speed.scaled(10), Duration.milliseconds(2_500)),
            (.realTime, .seconds(25)),
        ] {
            let clock = ManualClock(advancesOnSleep: true)
            let start = clock.now
            for try await _ in TrackReplay(fixes, clock: clock, speed: speed, tickInterval: nil) {}
            #expect(start.duration(to: clock.now) == expected)
        }
    }

    @Test("as fast as possible never touches the clock")
    func fastest() async throws {
        let clock = ManualClock() // would block forever if slept on
        var n = 0
        for try await _ in TrackReplay(fixes, clock: clock, speed: .asFastAsPossible, tickInterval: 1) { n += 1 }
        #expect(n == 3 + 9 + 14, "3 fixes, ticks at 1…9 and 11…24")
        #expect(clock.now.offset == .zero)
        var m = 0
        for try await _ in TrackReplay(fixes, clock: clock, speed: .scaled(0), tickInterval: nil) { m += 1 }
        #expect(m == 3, "a factor of 0 cannot wait forever: it plays as fast as possible")
    }

    @Test("real-time replay on a manual clock waits for the clock to be advanced")
    func waitsForClock() async throws {
        let clock = ManualClock()
        let replay = TrackReplay(fixes, clock: clock, speed: .realTime, tickInterval: nil)
        let count = Counter()
        let task = Task { for try await _ in replay { count.increment() } }
        await clock.waitForSleepers(atLeast: 1)
        #expect(count.value == 1, "the first fix is due at once, the second waits")
        clock.advance(by: .seconds(10))
        await clock.waitForSleepers(atLeast: 1)
        #expect(count.value == 2)
        clock.advance(by: .seconds(15))
        try await task.value
        #expect(count.value == 3)
    }

    @Test("trailing ticks confirm a transition pending at the end of the track")
    func trailing() async throws {
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        let short =
            stay(at: offset(1_000), from: -20, through: 0) + [
                fix(10, paris), fix(12, paris), fix(13, paris), fix(15, paris),
            ]
        try await device.run(
            TrackReplay(short, clock: ManualClock(advancesOnSleep: true), speed: .scaled(100), trailingDuration: 30))
        #expect(rec.enters == ["a"])
    }

    @Test("a CSV track read by GeoFormats replays into the device")
    func csvTrack() async throws {
        var lines = ["time,latitude,longitude,accuracy"]
        for f in walkIn() {
            lines.append("\(f.timestamp.timeIntervalSince1970),\(f.coordinate.latitude),\(f.coordinate.longitude),5")
        }
        let points = try TrackReader(string: lines.joined(separator: "\n"), format: .csv).readAll()
        #expect(points.count == walkIn().count)
        let device = makeDevice()
        let (m, rec) = await manager(on: device)
        await m.startMonitoring(for: region("a"))
        try await device.run(
            TrackReplay(points: points, clock: ManualClock(advancesOnSleep: true), speed: .scaled(100)))
        #expect(rec.enters == ["a"])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}

@Suite("Scripted routes and GPS errors")
struct ScriptedRouteTests {
    let start = paris
    var route: ScriptedRoute {
        ScriptedRoute(
            start: t0,
            waypoints: [
                .init(paris, speed: 10),
                .init(offset(1_000), speed: 5, pause: 60),
                .init(offset(1_000, 500)),
            ])
    }

    @Test("the true position follows waypoints, speeds and pauses")
    func truth() {
        let r = route
        // `offset` is a local projection, so leg lengths differ from 1,000 m and 500 m by centimetres.
        #expect(abs(r.duration - (100 + 60 + 100)) < 0.1)
        let mid = r.truePosition(at: t0.addingTimeInterval(50))
        #expect(abs(Geodesic.wgs84.inverse(mid.coordinate, offset(500)).distance) < 1)
        #expect(mid.speed == 10)
        let paused = r.truePosition(at: t0.addingTimeInterval(130))
        #expect(paused.speed == 0)
        #expect(Geodesic.wgs84.inverse(paused.coordinate, offset(1_000)).distance < 1)
        let end = r.truePosition(at: t0.addingTimeInterval(1_000))
        #expect(Geodesic.wgs84.inverse(end.coordinate, offset(1_000, 500)).distance < 1)
    }

    @Test("perfect fixes lie on the route, one per interval, in time order")
    func perfectFixes() {
        let fixes = route.fixes(every: 2, errors: .perfect)
        #expect(fixes.count == Int(route.duration / 2) + 1)
        #expect(fixes.count >= 130)
        for f in fixes {
            #expect(
                Geodesic.wgs84.inverse(f.coordinate, route.truePosition(at: f.timestamp).coordinate).distance < 0.01)
        }
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
    }

    @Test("noise is seeded, correlated, and worse with Wi-Fi off")
    func noise() {
        func errors(_ model: GPSErrorModel, seed: UInt64) -> [Double] {
            route.fixes(every: 1, errors: model, seed: seed).map {
                Geodesic.wgs84.inverse($0.coordinate, route.truePosition(at: $0.timestamp).coordinate).distance
            }
        }
        let wifi = errors(.wifiAssisted, seed: 3)
        #expect(wifi == errors(.wifiAssisted, seed: 3))
        #expect(wifi != errors(.wifiAssisted, seed: 4))
        let rms = { (e: [Double]) in (e.map { $0 * $0 }.reduce(0, +) / Double(e.count)).squareRoot() }
        let gps = errors(.gpsOnly, seed: 3)
        #expect(rms(gps) > 1.5 * rms(wifi))
        #expect(rms(wifi) > 1 && rms(wifi) < 15)
        // Correlated: consecutive errors are much closer to each other than to a random pair.
        let fixes = route.fixes(every: 1, errors: .gpsOnly, seed: 3)
        let steps = zip(fixes, fixes.dropFirst()).map { a, b in
            let ta = route.truePosition(at: a.timestamp).coordinate
            let tb = route.truePosition(at: b.timestamp).coordinate
            let ea = LocalProjection(origin: ta).project(a.coordinate)
            let eb = LocalProjection(origin: tb).project(b.coordinate)
            return hypot(ea.east - eb.east, ea.north - eb.north)
        }
        #expect(steps.reduce(0, +) / Double(steps.count) < 0.5 * rms(gps))
        #expect(GPSErrorModel.forDevice(DeviceSettings()) == .wifiAssisted)
        var off = DeviceSettings()
        off.wifiEnabled = false
        #expect(GPSErrorModel.forDevice(off) == .gpsOnly)
    }

    @Test("jumps throw single fixes 100–500 m, some with lying accuracy")
    func jumps() {
        var model = GPSErrorModel.perfect
        model.jumpProbability = 0.1
        model.lyingProbability = 0.5
        let fixes = route.fixes(every: 1, errors: model, seed: 9)
        let offsets = fixes.map {
            Geodesic.wgs84.inverse($0.coordinate, route.truePosition(at: $0.timestamp).coordinate).distance
        }
        let jumped = offsets.filter { $0 > 50 }
        #expect(jumped.count > 10 && jumped.count < 50)
        #expect(jumped.allSatisfy { $0 >= 99 && $0 <= 501 })
        let lying = zip(fixes, offsets).filter { $1 > 50 && ($0.horizontalAccuracy ?? 0) < 50 }
        #expect(!lying.isEmpty && lying.count < jumped.count)
    }
}
