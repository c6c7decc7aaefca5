import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

@Suite("Monitor")
struct MonitorTests {
    let circle = MonitorCondition.circular(center: paris, radius: 500)

    @Test("add, identifiers and record(for:) hold the condition and its assumed state")
    func records() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "a")
        await monitor.add(.circular(center: offset(5_000), radius: 200), identifier: "b", assuming: .unsatisfied)
        #expect(await monitor.identifiers == ["a", "b"])
        let a = try #require(await monitor.record(for: "a"))
        #expect(a.condition == circle)
        #expect(a.lastEvent.state == .unknown)
        #expect(await monitor.record(for: "b")?.lastEvent.state == .unsatisfied)
        #expect(await monitor.record(for: "zzz") == nil)
    }

    @Test("the first determination is reported when it differs from the assumed state")
    func initialDetermination() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        var it = monitor.events.makeAsyncIterator()
        await monitor.add(circle, identifier: "unknown-start")
        await monitor.add(circle, identifier: "assumed-out", assuming: .unsatisfied)
        try await device.feed(walkIn())
        let events = await take(3, from: &it)
        #expect(events.map(\.identifier) == ["unknown-start", "unknown-start", "assumed-out"])
        #expect(events.map(\.state) == [.unsatisfied, .satisfied, .satisfied])
        #expect(events[1].date == t0.addingTimeInterval(30), "dated by the track, not delivery")
        #expect(await monitor.record(for: "assumed-out")?.lastEvent.state == .satisfied)
    }

    @Test("a region the device is already in gives no event when assumed satisfied")
    func assumedInside() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "home", assuming: .satisfied)
        try await device.feed(stride(from: 0.0, through: 60, by: 5).map { fix($0, paris) })
        #expect(await drain(monitor).isEmpty)
    }

    @Test("remove means no more events for that identifier")
    func remove() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "a", assuming: .unsatisfied)
        await monitor.add(circle, identifier: "b", assuming: .unsatisfied)
        await monitor.remove("a")
        #expect(await monitor.identifiers == ["b"])
        try await device.feed(walkIn())
        #expect(await drain(monitor).map(\.identifier) == ["b"])
    }

    @Test("adding an existing identifier replaces the condition and resets its state")
    func replace() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        var it = monitor.events.makeAsyncIterator()
        await monitor.add(circle, identifier: "a", assuming: .unsatisfied)
        try await device.feed(walkIn())
        #expect(await take(1, from: &it).map(\.state) == [.satisfied])
        let far = MonitorCondition.circular(center: offset(8_000), radius: 300)
        await monitor.add(far, identifier: "a", assuming: .satisfied)
        #expect(await monitor.identifiers == ["a"])
        #expect(await monitor.record(for: "a")?.condition == far)
        try await device.feed(stay(at: paris, from: 50, through: 75))
        #expect(await take(1, from: &it).map(\.state) == [.unsatisfied], "the replaced condition is determined afresh")
    }

    @Test("events never drop under a slow consumer: 600 transitions buffered, all delivered in order")
    func unboundedBuffer() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "a", assuming: .unsatisfied)
        var t = 0.0
        for _ in 0..<300 {
            try await device.feed(walkIn(start: t) + walkOut(start: t + 45))
            t += 100
        }
        let events = await drain(monitor)
        #expect(events.count == 600)
        #expect(events.enumerated().allSatisfy { $0.element.state == ($0.offset % 2 == 0 ? .satisfied : .unsatisfied) })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.date < $1.date })
    }

    @Test("events finishes cleanly when the monitor is closed, and when invalidated")
    func streamEnds() async throws {
        let device = makeDevice()
        let m1 = try await Monitor("one", device: device)
        let consumer = Task {
            var n = 0
            for await _ in m1.events { n += 1 }
            return n
        }
        await m1.add(circle, identifier: "a", assuming: .unsatisfied)
        try await device.feed(walkIn())
        await m1.close()
        #expect(await consumer.value == 1)

        let m2 = try await Monitor("two", device: device)
        let consumer2 = Task {
            var n = 0
            for await _ in m2.events { n += 1 }
            return n
        }
        await m2.invalidate()
        #expect(await consumer2.value == 0)
        #expect(await device.monitoredRegionCount == 1, "only monitor one's condition remains")
    }

    @Test("only one open monitor per name")
    func oneInstancePerName() async throws {
        let device = makeDevice()
        let first = try await Monitor("fleet", device: device)
        await #expect(throws: MonitoringError.monitorAlreadyOpen(name: "fleet")) {
            _ = try await Monitor("fleet", device: device)
        }
        await first.close()
        _ = try await Monitor("fleet", device: device)
        await #expect(throws: MonitoringError.invalidName("a/b")) { _ = try await Monitor("a/b", device: device) }
    }

    @Test("a closed instance cannot change or close the instance that replaced it")
    func staleInstance() async throws {
        let device = makeDevice()
        let old = try await Monitor("fleet", device: device)
        await old.add(circle, identifier: "a")
        await old.close()
        let current = try await Monitor("fleet", device: device)
        await old.add(circle, identifier: "stale")
        await old.remove("a")
        await old.close()
        await old.invalidate()
        #expect(await current.identifiers == ["a"])
        await current.add(circle, identifier: "b")
        #expect(await current.identifiers == ["a", "b"], "still open")
    }

    @Test("a relaunched monitor with the same name gets the events it missed, in order, exactly once")
    func relaunch() async throws {
        let device = makeDevice()
        let app = try await Monitor("fleet", device: device)
        await app.add(circle, identifier: "depot", assuming: .unsatisfied)
        await app.add(.circular(center: offset(3_000), radius: 500), identifier: "yard", assuming: .unsatisfied)
        await app.close() // the app is terminated
        try await device.feed(walkIn() + walkOut()) // depot: enter, exit
        try await device.feed(walkIn(start: 100, origin: offset(3_000))) // yard: enter

        let relaunched = try await Monitor("fleet", device: device)
        let missed = await drain(relaunched)
        #expect(missed.map(\.identifier) == ["depot", "depot", "yard"])
        #expect(missed.map(\.state) == [.satisfied, .unsatisfied, .satisfied])
        #expect(zip(missed, missed.dropFirst()).allSatisfy { $0.date < $1.date })

        let again = try await Monitor("fleet", device: device)
        #expect(await drain(again).isEmpty, "delivered once")
        #expect(await again.identifiers == ["depot", "yard"])
    }

    @Test("the 21st condition is unmonitored with conditionLimitExceeded; the first 20 keep working")
    func conditionLimit() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        var it = monitor.events.makeAsyncIterator()
        for i in 0..<20 {
            await monitor.add(
                .circular(center: offset(Double(i) * 5_000, 20_000), radius: 500), identifier: "c\(i)",
                assuming: .unsatisfied)
        }
        await monitor.add(circle, identifier: "c20", assuming: .unsatisfied)
        let over = await take(1, from: &it)
        #expect(over.first?.identifier == "c20")
        #expect(over.first?.state == .unmonitored)
        #expect(over.first?.conditionLimitExceeded == true)
        #expect(await monitor.record(for: "c20")?.lastEvent.state == .unmonitored)
        try await device.feed(walkIn()) // c20 is not watched
        try await device.feed(walkIn(start: 100, origin: offset(0, 20_000))) // c0 is
        let next = await take(1, from: &it)
        #expect(next.map(\.identifier) == ["c0"])
    }

    @Test("the limit counts location manager regions and monitor conditions together")
    func sharedLimit() async throws {
        let device = makeDevice { $0.regionLimit = 2 }
        let (m, _) = await manager(on: device)
        await m.startMonitoring(for: region("lm"))
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "x")
        await monitor.add(circle, identifier: "y")
        #expect(await monitor.record(for: "x")?.lastEvent.state == .unknown)
        #expect(await monitor.record(for: "y")?.lastEvent.conditionLimitExceeded == true)
    }

    @Test("a beacon condition, or a circle above the maximum, is unmonitored with conditionUnsupported")
    func unsupported() async throws {
        let device = makeDevice { $0.maximumRegionMonitoringDistance = 1_000 }
        let monitor = try await Monitor("m", device: device)
        await monitor.add(.beacon(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), identifier: "beacon")
        await monitor.add(.circular(center: paris, radius: 5_000), identifier: "big")
        await monitor.add(.circular(center: paris, radius: -1), identifier: "negative")
        let events = await drain(monitor)
        #expect(events.map(\.identifier) == ["beacon", "big", "negative"])
        #expect(events.allSatisfy { $0.state == .unmonitored && $0.conditionUnsupported })
    }

    @Test("denied authorisation is reported to an open monitor with authorizationDenied, then silence")
    func deniedDiagnostics() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        await monitor.add(circle, identifier: "a", assuming: .unsatisfied)
        await device.update { $0.authorization = .denied }
        try await device.feed(walkIn())
        let events = await drain(monitor)
        #expect(events.count == 1)
        #expect(events.first?.authorizationDenied == true)
        #expect(events.first?.state == .unsatisfied, "the state is unchanged")
    }

    @Test("when-in-use: a closed monitor (app not running) gets nothing for crossings meanwhile")
    func whenInUseClosed() async throws {
        let device = makeDevice { $0.authorization = .authorizedWhenInUse }
        let app = try await Monitor("m", device: device)
        await app.add(circle, identifier: "a", assuming: .unsatisfied)
        await app.close()
        try await device.feed(walkIn())
        let relaunched = try await Monitor("m", device: device)
        #expect(await drain(relaunched).isEmpty)
    }

    @Test("polygon conditions work through the monitor")
    func polygonCondition() async throws {
        let device = makeDevice()
        let monitor = try await Monitor("m", device: device)
        let ring = [offset(-600, -600), offset(-600, 600), offset(600, 600), offset(600, -600)]
        await monitor.add(.polygon(exterior: ring, holes: []), identifier: "sq", assuming: .unsatisfied)
        try await device.feed(walkIn())
        #expect(await drain(monitor).map(\.state) == [.satisfied])
    }
}
