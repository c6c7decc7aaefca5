import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import Testing

/// Several `geofence serve` instances on one PostgreSQL database (docs/server.md, "Scale-out").
@Suite("Two instances on one PostgreSQL")
struct ScaleOutTests {
    static let t0 = 1_800_000_000.0
    /// Two 500 m circles 0.02° of longitude apart on the 31st parallel.
    static let regions = [
        circleFeature("west", lat: 31, lon: 121.00, radius: 500),
        circleFeature("east", lat: 31, lon: 121.02, radius: 500),
    ]
    static let devices = (0..<4).map { "device-\($0)" }

    /// Device `k` sweeps east and back across both circles, one fix every 10 s, 0.002° (≈ 190 m)
    /// a step, starting at a different phase; cut into batches of 3 fixes.
    static func batches(device k: Int) -> [String] {
        var fixes: [String] = []
        for i in 0..<48 {
            let phase = (i + 5 * k) % 36 // 0…35: out and back over 0.036°
            let lon = 120.99 + 0.002 * Double(phase < 18 ? phase : 36 - phase)
            fixes.append(fixJSON(31.0 + 0.0001 * Double(k), lon, t: t0 + 10 * Double(i)))
        }
        return stride(from: 0, to: fixes.count, by: 3).map {
            "[\(fixes[$0..<min($0 + 3, fixes.count)].joined(separator: ","))]"
        }
    }

    /// Every event of the tenant, paging through `GET /v1/events`.
    static func allEvents(_ h: Harness, key: String) async throws -> [ServerJSON] {
        var out: [ServerJSON] = []
        var after = "0"
        while true {
            let page = try await h.call(.GET, "/v1/events?after=\(after)&limit=1000", key: key)
            let events = page["events"]?.array ?? []
            if events.isEmpty { return out }
            out += events
            after = page["next"]?.string ?? after
        }
    }

    /// What an event means, without its id and cursor (which differ between runs).
    static func meaning(_ e: ServerJSON) -> String {
        ["device", "region", "event", "time", "crossedAt"].map { e[$0]?.string ?? "?" }.joined(separator: " ")
    }

    static func seed(_ h: Harness, key: String) async throws {
        let body = #"{"type":"FeatureCollection","features":[\#(regions.joined(separator: ","))]}"#
        let r = try await h.call(.POST, "/v1/regions/import", key: key, body: body)
        #expect(r.status == 200, "\(r)")
    }

    /// Per device, the meanings of its events in order.
    static func byDevice(_ events: [ServerJSON]) -> [String: [String]] {
        Dictionary(grouping: events.map(meaning), by: { String($0.prefix(while: { $0 != " " })) })
    }

    @Test("fixes of the same devices fed alternately to two instances give the events of one instance")
    func alternatingInstancesMatchOne() async throws {
        // Reference: one instance gets every batch (on SQLite: the engine, not the store, decides events).
        let reference: [ServerJSON] = try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            try await Self.seed(h, key: key)
            for (k, d) in Self.devices.enumerated() {
                for b in Self.batches(device: k) {
                    let r = try await h.call(.POST, "/v1/devices/\(d)/locations", key: key, body: b)
                    #expect(r.status == 200, "\(r)")
                }
            }
            return try await Self.allEvents(h, key: key)
        }
        #expect(reference.count >= 16, "the sweep must cross the circles many times (\(reference.count) events)")

        try await TestDatabase.with(.postgres) { db in
            try await Harness.run(database: db.location) { a in
                try await Harness.run(database: db.location) { b in
                    let key = try await a.key("acme")
                    try await Self.seed(b, key: key)
                    // Devices in parallel (the two instances race on the tenant); each device's
                    // batches in order, alternating between the instances.
                    let answered = try await withThrowingTaskGroup(of: [ServerJSON].self) { group in
                        for (k, d) in Self.devices.enumerated() {
                            group.addTask {
                                var events: [ServerJSON] = []
                                for (i, body) in Self.batches(device: k).enumerated() {
                                    let r = try await (i % 2 == 0 ? a : b).call(
                                        .POST, "/v1/devices/\(d)/locations", key: key, body: body)
                                    #expect(r.status == 200, "\(d) batch \(i): \(r)")
                                    events += r["events"]?.array ?? []
                                }
                                return events
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                    let storedA = try await Self.allEvents(a, key: key)
                    let storedB = try await Self.allEvents(b, key: key)
                    // Both instances read the same outbox; no event twice, none lost.
                    #expect(storedA.map { $0["id"]?.string } == storedB.map { $0["id"]?.string })
                    #expect(Set(storedA.compactMap { $0["id"]?.string }).count == storedA.count)
                    #expect(
                        Set(answered.compactMap { $0["id"]?.string }) == Set(storedA.compactMap { $0["id"]?.string }))
                    #expect(Self.byDevice(storedA) == Self.byDevice(reference))
                    #expect(storedA.count == reference.count)
                    // Cursors are 1…n without gaps.
                    #expect(storedA.compactMap { $0["cursor"]?.string.flatMap(Int.init) } == Array(1...storedA.count))
                }
            }
        }
    }

    @Test("batches of one device racing on two instances: every stored event is what replaying the journal gives")
    func racingBatchesMatchJournal() async throws {
        try await TestDatabase.with(.postgres) { db in
            try await Harness.run(database: db.location) { a in
                try await Harness.run(database: db.location) { b in
                    let key = try await a.key("acme")
                    try await Self.seed(a, key: key)
                    // Batch i goes to A while batch i+1 goes to B, at the same moment: the later one
                    // may commit first (then the earlier gets 409), or they serialise on the device lock.
                    var statuses: [Int] = []
                    for d in 0..<2 {
                        let batches = Self.batches(device: d)
                        for i in stride(from: 0, to: batches.count - 1, by: 2) {
                            async let x = a.call(.POST, "/v1/devices/device-\(d)/locations", key: key, body: batches[i])
                            async let y = b.call(
                                .POST, "/v1/devices/device-\(d)/locations", key: key, body: batches[i + 1])
                            statuses += try await [x.status, y.status]
                        }
                    }
                    #expect(statuses.allSatisfy { $0 == 200 || $0 == 409 }, "\(statuses)")
                    #expect(statuses.filter { $0 == 200 }.count >= statuses.count / 2)

                    // Replay the committed journal into a fresh engine: its events must be exactly the outbox.
                    let store = try await db.open()
                    var engine = Engine(policy: .precise)
                    var replayed: [String] = []
                    for entry in try await store.journal(tenant: "acme") {
                        switch entry {
                        case .upsert(let regions): try engine.add(contentsOf: regions)
                        case .delete(let id): _ = engine.remove(identifier: id)
                        case .fixes(let fixes):
                            for f in fixes {
                                replayed += try engine.process(f).map {
                                    "\($0.subject) \($0.regionID) \($0.kind.rawValue) \(FixJSON.formatRFC3339($0.time))"
                                }
                            }
                        }
                    }
                    try await store.close()
                    let stored = try await Self.allEvents(a, key: key).map { e in
                        ["device", "region", "event", "time"].map { e[$0]?.string ?? "?" }.joined(separator: " ")
                    }
                    #expect(!stored.isEmpty)
                    // Per device in order (devices interleave differently in the journal and the outbox).
                    func perDevice(_ lines: [String]) -> [Substring: [String]] {
                        Dictionary(grouping: lines, by: { $0.prefix(while: { $0 != " " }) })
                    }
                    #expect(perDevice(replayed) == perDevice(stored))
                }
            }
        }
    }

    @Test("region changes made through one instance reach the other")
    func regionChangesPropagate() async throws {
        try await TestDatabase.with(.postgres) { db in
            // B never polls during the first part: a fix batch must see A's region anyway.
            try await Harness.run(database: db.location) { a in
                try await Harness.run(database: db.location, configure: { $0.regionSyncInterval = .milliseconds(20) }) {
                    b in
                    let key = try await a.key("acme")
                    // B has loaded the tenant (empty) before A adds a region.
                    #expect(
                        try await b.call(.GET, "/v1/regions/nearby?lat=31&lon=121", key: key)["regions"]?.array?.count
                            == 0)
                    #expect(try await a.call(.PUT, "/v1/regions/west", key: key, body: Self.regions[0]).status == 201)

                    // 1. A fix batch through B right away is judged against A's region.
                    let inside = (0..<8).map { fixJSON(31, 121, t: Self.t0 + 10 * Double($0)) }.joined(separator: ",")
                    let outside = fixJSON(31, 120.9, t: Self.t0 - 10)
                    _ = try await b.call(.POST, "/v1/devices/d/locations", key: key, body: outside)
                    let r = try await b.call(.POST, "/v1/devices/d/locations", key: key, body: "[\(inside)]")
                    #expect(r.status == 200, "\(r)")
                    #expect(
                        r["events"]?.array?.map { "\($0["event"]?.string ?? "") \($0["region"]?.string ?? "")" } == [
                            "enter west"
                        ], "\(r)")

                    // 2. A read-only answer on B (nearby, from its engine) follows by polling.
                    #expect(try await a.call(.PUT, "/v1/regions/east", key: key, body: Self.regions[1]).status == 201)
                    let clock = ContinuousClock()
                    let start = clock.now
                    var ids: [String] = []
                    for _ in 0..<500 {
                        ids =
                            try await b.call(.GET, "/v1/regions/nearby?lat=31&lon=121.02", key: key)["regions"]?.array?
                            .compactMap { $0["id"]?.string } ?? []
                        if ids.contains("east") { break }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    // (Within the loop's 500 polls: a wall-clock bound here would measure the machine.)
                    #expect(ids.first == "east", "not synced after \(clock.now - start)")
                    #expect(try await a.call(.DELETE, "/v1/regions/east", key: key).status == 204)
                    for _ in 0..<500 {
                        ids =
                            try await b.call(.GET, "/v1/regions/nearby?lat=31&lon=121.02", key: key)["regions"]?.array?
                            .compactMap { $0["id"]?.string } ?? []
                        if !ids.contains("east") { break }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    #expect(ids == ["west"])
                    // And B's own region write builds on A's changes (no lost update).
                    #expect(
                        try await b.call(
                            .PUT, "/v1/regions/north", key: key,
                            body: circleFeature("north", lat: 31.05, lon: 121, radius: 300)
                        ).status == 201)
                    let listed = try await a.call(.GET, "/v1/regions", key: key)["regions"]?.array?.compactMap {
                        $0["id"]?.string
                    }
                    #expect(listed == ["north", "west"])
                }
            }
        }
    }

    @Test("a webhook delivery is sent by one instance only, even when both workers poll")
    func deliveriesClaimedOnce() async throws {
        try await Receiver.run { receiver in
            try await TestDatabase.with(.postgres) { db in
                try await Harness.run(database: db.location) { a in
                    try await Harness.run(database: db.location) { b in
                        let key = try await a.key("acme")
                        #expect(
                            try await a.call(.POST, "/v1/webhooks", key: key, body: #"{"url":"\#(receiver.url)"}"#)
                                .status == 201)
                        _ = try await ShanghaiWebhookTests.runScenario(a, key: key)
                        async let x = a.server.dispatcher.deliverDue()
                        async let y = b.server.dispatcher.deliverDue()
                        let (nx, ny) = try await (x, y)
                        #expect(nx + ny == 1)
                        #expect(await receiver.log.hits.count == 1)
                    }
                }
            }
        }
    }
}

/// The store-level rules the runtime relies on, with two `PostgresStore`s standing for two
/// instances.
@Suite("PostgreSQL store shared by two processes")
struct SharedStoreTests {
    static func fix(_ t: Double, lon: Double = 121) throws -> LocationFix {
        LocationFix(
            subject: "d", coordinate: try Coordinate(latitude: 31, longitude: lon),
            timestamp: Date(timeIntervalSince1970: t))
    }

    @Test("a write built on an old view is refused whole; the store names what moved on and hands over what was missed")
    func staleWritesRefused() async throws {
        try await TestDatabase.with(.postgres) { db in
            let a = try await db.open()
            let b = try await db.open()
            #expect(a.isShared && b.isShared)
            _ = try await a.journal(tenant: "t")
            _ = try await b.journal(tenant: "t")
            // B moves device d on; A's next commit for d is refused and writes nothing.
            _ = try await b.commitFixes(tenant: "t", device: "d", fixes: [try Self.fix(10)], events: [], now: Date())
            await #expect(throws: StoreError.self) {
                _ = try await a.commitFixes(
                    tenant: "t", device: "d", fixes: [try Self.fix(20)], events: [], now: Date())
            }
            do {
                _ = try await a.commitFixes(
                    tenant: "t", device: "d", fixes: [try Self.fix(20)], events: [], now: Date())
                Issue.record("a stale commit was accepted")
            } catch StoreError.staleDevice(let t, let d) {
                #expect(t == "t" && d == "d")
            }
            // Another device is not affected.
            _ = try await a.commitFixes(
                tenant: "t", device: "other", fixes: [try Self.fix(20)], events: [], now: Date())
            // A catches up on exactly B's batch, then commits.
            let missed = try #require(try await a.newerBatches(tenant: "t", device: "d"))
            #expect(missed == [[try Self.fix(10)]])
            #expect(try await a.newerBatches(tenant: "t", device: "d") == [])
            _ = try await a.commitFixes(tenant: "t", device: "d", fixes: [try Self.fix(20)], events: [], now: Date())
            #expect(try await b.journal(tenant: "t").count == 3)

            // B changes the regions: A's fix commit and region write are refused, A is told.
            #expect(try await a.changedTenants() == [])
            let region = try Region.circle(
                identifier: "r", center: Coordinate(latitude: 31, longitude: 121), radius: 100)
            try await b.upsertRegions(tenant: "t", [region], now: Date())
            #expect(try await a.changedTenants() == ["t"])
            #expect(try await a.newerBatches(tenant: "t", device: "d") == nil)
            do {
                _ = try await a.commitFixes(
                    tenant: "t", device: "d", fixes: [try Self.fix(30)], events: [], now: Date())
                Issue.record("a commit on old regions was accepted")
            } catch StoreError.staleView(let t) { #expect(t == "t") }
            await #expect(throws: StoreError.self) { try await a.upsertRegions(tenant: "t", [region], now: Date()) }
            #expect(try await a.listRegions(tenant: "t", after: nil, limit: 10).count == 1)
            // After reading the journal A is current again.
            #expect(try await a.journal(tenant: "t").count == 4)
            #expect(try await a.changedTenants() == [])
            _ = try await a.commitFixes(tenant: "t", device: "d", fixes: [try Self.fix(30)], events: [], now: Date())
            try await a.close()
            try await b.close()
        }
    }

    @Test("a commit waiting for a device's lock reads the version committed by the holder, and is refused whole")
    func commitReadsVersionsAfterTheLock() async throws {
        try await TestDatabase.with(.postgres) { db in
            let a = try #require(try await db.open() as? PostgresStore)
            let other = try #require(try await db.open() as? PostgresStore)
            // A tenant name of its own: advisory lock keys are database-wide, shared by all schemas.
            let tenant = "lock-" + UUID().uuidString
            _ = try await a.journal(tenant: tenant)
            func batch(_ device: String, _ t: Double, _ event: String) throws -> FixBatch {
                let f = LocationFix(
                    subject: device, coordinate: try Coordinate(latitude: 31, longitude: 121),
                    timestamp: Date(timeIntervalSince1970: t))
                return FixBatch(
                    device: device, fixes: [f],
                    events: [
                        StoredEvent(
                            id: event, tenant: tenant,
                            event: TransitionEvent(
                                kind: .enter, regionID: "r", subject: device, fix: f, time: f.timestamp,
                                crossedAt: f.timestamp))
                    ])
            }
            let group = [try batch("free", 10, "e-free"), try batch("d", 10, "e-d")]
            // "Another instance" holds d's lock and has moved d on, uncommitted. A's group commit
            // (built on version 0 of d) must wait for the lock, then see version 1 and refuse.
            let pending = try await other.holdingDeviceLock(tenant: tenant, device: "d") {
                let pending = Task { try await a.commitFixBatches(tenant: tenant, group, now: Date()) }
                var polls = 0
                while try await other.deviceLockWaiters(tenant: tenant, device: "d") == 0 {
                    polls += 1
                    if polls > 20_000 {
                        Issue.record("the commit never waited for the lock")
                        break
                    }
                    await Task.yield()
                }
                return pending
            }
            do {
                _ = try await pending.value
                Issue.record("a commit built on an old version of d was accepted")
            } catch StoreError.staleDevice(let t, let d) {
                #expect(t == tenant && d == "d")
            }
            // Nothing of the group was written, not even the other device's batch or the events.
            #expect(try await other.journal(tenant: tenant).isEmpty)
            #expect(try await other.events(tenant: tenant, after: 0, limit: 10).isEmpty)
            // With its view re-read (the holder moved d's version without a journal row), A commits the group.
            _ = try await a.journal(tenant: tenant)
            let out = try await a.commitFixBatches(tenant: tenant, group, now: Date())
            #expect(out.map { $0.map(\.cursor) } == [[1], [2]])
            try await a.close()
            try await other.close()
        }
    }
}
