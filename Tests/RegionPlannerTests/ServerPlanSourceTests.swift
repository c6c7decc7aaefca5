import Foundation
import Geodesy
import Geofencing
import RegionPlanner
import Testing

/// A transport that answers from a script and records what it was asked.
final class ScriptedTransport: PlanTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Result<PlanHTTPResponse, any Error>]
    private(set) var requests: [(url: String, headers: [(String, String)])] = []

    init(_ answers: [Result<PlanHTTPResponse, any Error>]) { self.answers = answers }

    func get(_ url: String, headers: [(String, String)]) async throws -> PlanHTTPResponse {
        let next: Result<PlanHTTPResponse, any Error> = lock.withLock {
            requests.append((url, headers))
            return answers.isEmpty ? .failure(URLError(.notConnectedToInternet)) : answers.removeFirst()
        }
        return try next.get()
    }

    var asked: [(url: String, headers: [(String, String)])] { lock.withLock { requests } }
}

private func ok(_ body: String, etag: String = "\"e1\"", maxAge: Int = 60) -> Result<PlanHTTPResponse, any Error> {
    .success(
        PlanHTTPResponse(
            status: 200, headers: ["etag": etag, "cache-control": "private, max-age=\(maxAge)"], body: Array(body.utf8))
    )
}

private func plan(regions: String = "", enabled: Bool = true, radius: String = "5000") -> String {
    let center = enabled ? #"{"latitude":30.5,"longitude":120.5}"# : "null"
    return
        #"{"device":"p","center":\#(center),"slots":20,"monitoringEnabled":\#(enabled),"maxAgeSeconds":60,"regions":[\#(regions)],"replanRadiusMeters":\#(enabled ? radius : "null"),"guaranteed":true}"#
}

private let shop =
    #"{"type":"Feature","id":"s1","geometry":{"type":"Point","coordinates":[120.51,30.5]},"properties":{"id":"s1","radius":200,"source":"acme","initialTrigger":["enter"]},"distanceMeters":700,"hasChildren":false}"#

@Suite("ServerPlanSource: plans over HTTP with ETag and max-age")
struct ServerPlanSourceTests {
    let here = Coordinate(uncheckedLatitude: 30.5, longitude: 120.5)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "a plan is read with its regions' trigger strategy, kept for max-age, then revalidated at the same URL with its ETag"
    )
    func revalidation() async throws {
        let transport = ScriptedTransport([
            ok(plan(regions: shop)),
            .success(PlanHTTPResponse(status: 304, headers: ["cache-control": "max-age=120"], body: [])),
        ])
        let source = ServerPlanSource(
            server: "http://h:1/", key: "k", device: "my phone/1", slots: 5, transport: transport)
        guard case .changed(let p) = try await source.fetch(at: here, now: t0) else {
            Issue.record("no plan")
            return
        }
        #expect(p.regions.map(\.region.identifier) == ["s1"])
        #expect(p.regions[0].region.source == "acme" && p.regions[0].region.initialTrigger == [.enter])
        #expect(p.regions[0].region.metadata["distanceMeters"] == nil)
        #expect(p.replanRadius == 5_000 && p.monitoringEnabled)
        #expect(await !source.isExpired(at: t0.addingTimeInterval(59)))
        #expect(await source.isExpired(at: t0.addingTimeInterval(60)))
        #expect(try await source.revalidate(now: t0.addingTimeInterval(60)) == .unchanged)
        #expect(await !source.isExpired(at: t0.addingTimeInterval(179)))
        let asked = transport.asked
        #expect(asked.count == 2 && asked[0].url == asked[1].url)
        #expect(asked[0].url == "http://h:1/v1/devices/my%20phone%2F1/plan?lat=30.5&lon=120.5&slots=5")
        #expect(asked[1].headers.contains { $0 == ("If-None-Match", "\"e1\"") })
        #expect(asked[0].headers.contains { $0 == ("Authorization", "Bearer k") })
        #expect(await source.statistics == PlanSourceStatistics(fetched: 1, notModified: 1, failures: 0))
    }

    @Test("plans are asked for the event latency: the source's, or the follower's monitor's when later, at most 900 s")
    func eventLatencyAsked() async throws {
        func firstURL(
            sourceLatency: Double, monitorLatency: Double
        ) async throws -> (String, ServerPlanFollower<EngineSlotMonitor>) {
            let transport = ScriptedTransport([ok(plan(regions: shop))])
            let source = ServerPlanSource(
                server: "http://h:1", key: "k", device: "p", eventLatency: sourceLatency, transport: transport)
            let follower = ServerPlanFollower(
                monitor: EngineSlotMonitor(subject: "p", policy: .coreLocation, eventLatency: monitorLatency),
                source: source)
            _ = await follower.observe(
                LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0))
            return (try #require(transport.asked.first).url, follower)
        }
        let base = "http://h:1/v1/devices/p/plan?lat=30.5&lon=120.5&slots=20"
        var (url, follower) = try await firstURL(sourceLatency: 0, monitorLatency: 0)
        #expect(url == base, "nothing stated: nothing sent")
        #expect(follower.sizing.eventLatency == 0)
        (url, follower) = try await firstURL(sourceLatency: 0, monitorLatency: 300)
        #expect(url == base + "&eventLatency=300.0", "Core Location's monitor")
        #expect(follower.sizing.eventLatency == 300 && follower.eventLatency == 300)
        (url, _) = try await firstURL(sourceLatency: 600, monitorLatency: 300)
        #expect(url == base + "&eventLatency=600.0")
        (url, follower) = try await firstURL(sourceLatency: .infinity, monitorLatency: 0)
        #expect(url == base + "&eventLatency=900.0")
        #expect(follower.sizing.eventLatency == 900)
        (url, _) = try await firstURL(sourceLatency: -5, monitorLatency: 0)
        #expect(url == base)
        (url, _) = try await firstURL(sourceLatency: 0, monitorLatency: .nan)
        #expect(url == base + "&eventLatency=900.0", "not a number: the longest")
        // The revalidation asks the same URL, latency included.
        let transport = ScriptedTransport([
            ok(plan(regions: shop)),
            .success(PlanHTTPResponse(status: 304, headers: ["cache-control": "max-age=60"], body: [])),
        ])
        let source = ServerPlanSource(
            server: "http://h:1", key: "k", device: "p", eventLatency: 300, transport: transport)
        _ = try await source.fetch(at: here, now: t0)
        #expect(try await source.revalidate(now: t0.addingTimeInterval(60)) == .unchanged)
        #expect(transport.asked.map(\.url) == [base + "&eventLatency=300.0", base + "&eventLatency=300.0"])
    }

    @Test(
        "hostile or broken answers are typed errors and the plan held stays",
        arguments: [
            ok("not json"), ok(#"{"monitoringEnabled":true}"#), ok(plan(regions: #"{"type":"Feature"}"#)),
            ok(plan(radius: "-1")), ok(plan(radius: "null")),
            ok(plan(regions: shop).replacingOccurrences(of: #"{"latitude":30.5,"longitude":120.5}"#, with: "null")),
            ok(plan(regions: shop.replacingOccurrences(of: "\"radius\":200", with: "\"radius\":1e20"))),
            .success(PlanHTTPResponse(status: 500, headers: [:], body: Array(#"{"detail":"boom"}"#.utf8))),
            .success(PlanHTTPResponse(status: 401, headers: [:], body: [])),
            .failure(URLError(.timedOut)),
        ])
    func brokenAnswers(_ answer: Result<PlanHTTPResponse, any Error>) async throws {
        let transport = ScriptedTransport([ok(plan(regions: shop)), answer])
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        _ = try await source.fetch(at: here, now: t0)
        await #expect(throws: PlanSourceError.self) { try await source.fetch(at: here, now: t0) }
        #expect(await source.plan?.regions.map(\.region.identifier) == ["s1"])
        #expect(await source.statistics.failures == 1)
    }

    @Test("a 304 without a plan held is an error, not an empty plan")
    func notModifiedWithoutPlan() async {
        let transport = ScriptedTransport([.success(PlanHTTPResponse(status: 304, headers: [:], body: []))])
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        await #expect(throws: PlanSourceError.self) { try await source.fetch(at: here, now: t0) }
        #expect(await source.plan == nil)
    }

    @Test("the follower registers the plan with source prefixes and the re-plan circle; the switch empties the slots")
    func followerAndSwitch() async throws {
        let transport = ScriptedTransport([ok(plan(regions: shop)), ok(plan(enabled: false), etag: "\"off\"")])
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation, slotCapacity: 3)
        let follower = ServerPlanFollower(monitor: monitor, source: source)
        let fix = LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0)
        await follower.observe(fix)
        #expect(Set(monitor.registeredIdentifiers) == ["acme.s1", RegionPlanner<EngineSlotMonitor>.replanIdentifier])
        #expect(await follower.monitoring)
        // Within max-age: nothing asked.
        await follower.observe(
            LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0.addingTimeInterval(30)))
        #expect(transport.asked.count == 1)
        // After it: revalidated; the answer is "off".
        await follower.observe(
            LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0.addingTimeInterval(61)))
        #expect(monitor.registeredIdentifiers.isEmpty)
        #expect(await !follower.monitoring)
        #expect(await follower.statistics == FollowerStatistics(plansApplied: 2, registrations: 1, removals: 1))
    }
}

@Suite("ServerPlanFollower: the fix a plan is fetched at")
struct ServerPlanFollowerGlitchTests {
    let here = Coordinate(uncheckedLatitude: 30.5, longitude: 120.5)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a re-plan asked for at a 5 km glitch waits for the next fix on the track, and is made there")
    func glitchIsNoPlanPoint() async throws {
        let transport = ScriptedTransport([ok(plan(regions: shop)), ok(plan(regions: shop), etag: "\"2\"")])
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation, slotCapacity: 3)
        let follower = ServerPlanFollower(monitor: monitor, source: source)
        func fix(_ c: Coordinate, _ s: Double) -> LocationFix {
            LocationFix(subject: "p", coordinate: c, horizontalAccuracy: 5, timestamp: t0.addingTimeInterval(s))
        }
        await follower.observe(fix(here, 0))
        #expect(transport.asked.count == 1)
        let exit = TransitionEvent(
            kind: .exit, regionID: RegionPlanner<EngineSlotMonitor>.replanIdentifier, subject: "p",
            fix: fix(here, 10), time: t0.addingTimeInterval(10), crossedAt: t0.addingTimeInterval(10))
        _ = await follower.handle(exit)
        let far = Geodesic.wgs84.direct(from: here, azimuth: 90, distance: 5_000).coordinate
        await follower.observe(fix(far, 11))
        #expect(transport.asked.count == 1, "no plan at the glitch")
        #expect(await follower.statistics.glitchesRejected == 1)
        await follower.observe(fix(here, 12))
        #expect(transport.asked.count == 2, "the plan is made at the next fix on the track")
        #expect(transport.asked[1].url.contains("lon=120.5&"), "at the track's position: \(transport.asked[1].url)")
    }
}

@Suite("ServerPlanFollower when the server fails")
struct ServerPlanFollowerFailureTests {
    let here = Coordinate(uncheckedLatitude: 30.5, longitude: 120.5)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "an unreachable server is retried with a doubling back-off, not at every fix, and the errors kept are bounded")
    func backOff() async {
        let transport = ScriptedTransport([]) // every request fails
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation)
        let follower = ServerPlanFollower(monitor: monitor, source: source)
        for i in 0..<3_600 { // an hour of fixes, one a second
            await follower.observe(
                LocationFix(
                    subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0.addingTimeInterval(Double(i))))
        }
        // Retries at 0, 1, 3, 7, 15, 31, 63, 127, 255, 511 s, then every 300 s: 20 in the hour.
        #expect(transport.asked.count == 20)
        #expect(await follower.statistics.failedRequests == 20)
        #expect(await follower.errors.count == ServerPlanFollower<EngineSlotMonitor>.keptErrors)
        #expect(monitor.registeredIdentifiers.isEmpty)
    }

    @Test("two regions that would register under one identifier: the first is kept, the clash reported")
    func identifierClash() async {
        let clash =
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[120.52,30.5]},"properties":{"id":"acme.s1","radius":100}}"#
        let transport = ScriptedTransport([ok(plan(regions: shop + "," + clash))])
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: transport)
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation)
        let follower = ServerPlanFollower(monitor: monitor, source: source)
        await follower.observe(LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0))
        #expect(await follower.registeredIdentifiers == ["acme.s1"])
        #expect(monitor.engine.region(identifier: "acme.s1")?.source == "acme")
        #expect(await follower.errors.count == 1)
    }
}

@Suite("ServerPlanFollower across a relaunch")
struct ServerPlanFollowerRelaunchTests {
    let here = Coordinate(uncheckedLatitude: 30.5, longitude: 120.5)
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func circle(_ id: String, lon: Double, source: String? = nil) -> String {
        let s = source.map { #","source":"\#($0)""# } ?? ""
        return
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),30.5]},"properties":{"id":"\#(id)","radius":200\#(s)},"distanceMeters":700,"hasChildren":false}"#
    }

    /// The first launch: plan A (s1 of acme, s2) applied, then a minute at s1's centre, so the
    /// monitor holds s1 as inside. Returns the fix time reached.
    func firstLaunch(_ monitor: EngineSlotMonitor, store: (any FollowerStateStore)?) async throws -> Date {
        let planA = plan(regions: Self.circle("s1", lon: 120.51, source: "acme") + "," + Self.circle("s2", lon: 120.49))
        let source = ServerPlanSource(
            server: "http://h:1", key: "k", device: "p", transport: ScriptedTransport([ok(planA)]))
        let follower = ServerPlanFollower(monitor: monitor, source: source, store: store)
        await follower.observe(LocationFix(subject: "p", coordinate: here, horizontalAccuracy: 5, timestamp: t0))
        let s1 = Coordinate(uncheckedLatitude: 30.5, longitude: 120.51)
        var t = t0
        for _ in 0..<12 {
            t = t.addingTimeInterval(5)
            let fix = LocationFix(subject: "p", coordinate: s1, horizontalAccuracy: 5, timestamp: t)
            await follower.observe(fix)
            for e in try monitor.process(fix) { _ = await follower.handle(e) }
        }
        #expect(monitor.state(of: "acme.s1") == .inside)
        return t
    }

    /// The second launch asks at s1 and gets plan B: s1 unchanged, s2 gone, s3 new.
    func secondLaunch(
        _ monitor: EngineSlotMonitor, store: (any FollowerStateStore)?
    ) async -> ServerPlanFollower<EngineSlotMonitor> {
        let planB = plan(regions: Self.circle("s1", lon: 120.51, source: "acme") + "," + Self.circle("s3", lon: 120.53))
        let source = ServerPlanSource(
            server: "http://h:1", key: "k", device: "p", transport: ScriptedTransport([ok(planB, etag: "\"b\"")]))
        return ServerPlanFollower(monitor: monitor, source: source, store: store)
    }

    @Test("restored from its store, a follower keeps the unchanged regions with their state and removes the stale ones")
    func restoredFollowerCleansUp() async throws {
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation)
        let store = MemoryFollowerStore()
        let t = try await firstLaunch(monitor, store: store)
        #expect(await store.state?.registered == ["acme.s1", "s2"])

        let follower = await secondLaunch(monitor, store: store)
        #expect(await follower.restore())
        #expect(await follower.registeredIdentifiers == ["acme.s1", "s2"])
        let s1 = Coordinate(uncheckedLatitude: 30.5, longitude: 120.51)
        await follower.observe(
            LocationFix(subject: "p", coordinate: s1, horizontalAccuracy: 5, timestamp: t.addingTimeInterval(5)))
        #expect(
            Set(monitor.registeredIdentifiers) == ["acme.s1", "s3", RegionPlanner<EngineSlotMonitor>.replanIdentifier])
        #expect(monitor.state(of: "acme.s1") == .inside, "unchanged: kept, not registered again")
        #expect(await follower.statistics == FollowerStatistics(plansApplied: 1, registrations: 1, removals: 1))
    }

    @Test("without a store, a new follower leaves the earlier launch's stale regions in the slots")
    func withoutStoreStaleRegionsStay() async throws {
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation)
        let t = try await firstLaunch(monitor, store: nil)
        let follower = await secondLaunch(monitor, store: nil)
        #expect(await !follower.restore())
        let s1 = Coordinate(uncheckedLatitude: 30.5, longitude: 120.51)
        await follower.observe(
            LocationFix(subject: "p", coordinate: s1, horizontalAccuracy: 5, timestamp: t.addingTimeInterval(5)))
        #expect(monitor.registeredIdentifiers.contains("s2"), "the documented limit: s2 still takes a slot")
    }

    @Test("a saved state that is not a plan is reported and restores nothing; a file store round-trips")
    func unreadableState() async throws {
        let monitor = EngineSlotMonitor(subject: "p", policy: .coreLocation)
        let store = MemoryFollowerStore(
            FollowerState(plan: .string("garbage"), registered: ["x"], replanRegistered: true))
        let source = ServerPlanSource(server: "http://h:1", key: "k", device: "p", transport: ScriptedTransport([]))
        let follower = ServerPlanFollower(monitor: monitor, source: source, store: store)
        #expect(await !follower.restore())
        #expect(await follower.errors.count == 1)
        #expect(await follower.registeredIdentifiers.isEmpty)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("follower-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = FileFollowerStore(directory: dir, name: "shops")
        #expect(try file.load() == nil)
        let state = FollowerState(plan: .object(["a": .number(1)]), registered: ["acme.s1"], replanRegistered: true)
        try file.save(state)
        #expect(try file.load() == state)
    }
}
