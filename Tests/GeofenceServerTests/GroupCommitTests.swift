import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import Testing

/// Fix batches of concurrent requests committed together (group commit on SQLite), and the
/// store call that does it, on both stores.
@Suite("Group commit of concurrent fix batches")
struct GroupCommitTests {
    static let devices = 12
    static let fixesPerDevice = 30
    static let t0 = 1_800_000_000.0

    /// Device `d` drives east through its own 300 m circle, about 38 m per fix.
    static func fix(device d: Int, index i: Int) -> (lat: Double, lon: Double, t: Double) {
        (31.0 + Double(d) * 0.01, 121.0 - 0.006 + Double(i) * 0.0004, t0 + Double(i))
    }

    static func expectedEvents(policy: HysteresisPolicy) throws -> [String] {
        let regions = (0..<devices).map { d in
            Region.circle(
                identifier: "c\(d)", center: Coordinate(uncheckedLatitude: 31.0 + Double(d) * 0.01, longitude: 121.0),
                radius: 300)
        }
        return try ReferenceEngine.events(
            regions: regions, policy: policy, devices: devices,
            fixesPerDevice: fixesPerDevice
        ) { fix(device: $0, index: $1) }
    }

    @Test(
        "concurrent single-fix requests: each answer carries exactly its own events, cursors run 1…n, a retry waits for its commit",
        arguments: StoreKind.allCases)
    func concurrentSingleFixes(_ kind: StoreKind) async throws {
        try await Harness.run(kind) { h in
            let key = try await h.key("acme")
            let features = (0..<Self.devices).map { d in
                circleFeature("c\(d)", lat: 31.0 + Double(d) * 0.01, lon: 121.0, radius: 300)
            }
            let imported = try await h.call(
                .POST, "/v1/regions/import", key: key,
                body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
            #expect(imported.status == 200, "\(imported)")

            // Every device sends its fixes one request at a time, all devices at once.
            let answers = try await withThrowingTaskGroup(of: [(event: String, id: String, cursor: String)].self) {
                group in
                for d in 0..<Self.devices {
                    group.addTask {
                        var mine: [(event: String, id: String, cursor: String)] = []
                        for i in 0..<Self.fixesPerDevice {
                            let f = Self.fix(device: d, index: i)
                            let r = try await h.call(
                                .POST, "/v1/devices/dev-\(d)/locations", key: key,
                                body: fixJSON(f.lat, f.lon, t: f.t, accuracy: 8))
                            #expect(r.status == 200, "\(r)")
                            for e in r["events"]?.array ?? [] {
                                guard case .object(let o) = e else { continue }
                                // An answer only lists events of its own device.
                                #expect(o["device"]?.string == "dev-\(d)")
                                mine.append(
                                    (
                                        "\(o["device"]?.string ?? "") \(o["region"]?.string ?? "") \(o["event"]?.string ?? "") \(o["time"]?.string ?? "")",
                                        o["id"]?.string ?? "", o["cursor"]?.string ?? ""
                                    ))
                            }
                        }
                        return mine
                    }
                }
                var all: [(event: String, id: String, cursor: String)] = []
                for try await part in group { all += part }
                return all
            }
            let expected = try Self.expectedEvents(policy: ServerConfiguration().policy)
            #expect(expected.count >= Self.devices) // the walk does cross the circles
            #expect(answers.map(\.event).sorted() == expected)
            #expect(answers.map(\.cursor).sorted { Int($0)! < Int($1)! } == (1...expected.count).map(String.init))

            // The outbox holds exactly the answered events, each once, in cursor order.
            let page = try await h.call(.GET, "/v1/events?after=0&limit=1000", key: key)
            let stored = (page["events"]?.array ?? []).compactMap { e -> (String, String)? in
                guard case .object(let o) = e, let id = o["id"]?.string, let c = o["cursor"]?.string else { return nil }
                return (id, c)
            }
            #expect(stored.map(\.0) == answers.sorted { Int($0.cursor)! < Int($1.cursor)! }.map(\.id))

            // Re-sending each device's last fix at once is answered as a duplicate and adds nothing.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for d in 0..<Self.devices {
                    group.addTask {
                        let f = Self.fix(device: d, index: Self.fixesPerDevice - 1)
                        let r = try await h.call(
                            .POST, "/v1/devices/dev-\(d)/locations", key: key,
                            body: fixJSON(f.lat, f.lon, t: f.t, accuracy: 8))
                        #expect(r.status == 200 && r["duplicate"] == .bool(true), "\(r)")
                    }
                }
                try await group.waitForAll()
            }
            let after = try await h.call(.GET, "/v1/events?after=0&limit=1000", key: key)
            #expect(after["events"]?.array?.count == expected.count)
            // Device state reads see every committed batch.
            let state = try await h.call(.GET, "/v1/devices/dev-0/state", key: key)
            let last = Self.fix(device: 0, index: Self.fixesPerDevice - 1)
            #expect(
                state["lastFix"].flatMap { v -> String? in
                    if case .object(let o) = v { return o["timestamp"]?.string } else { return nil }
                } == FixJSON.formatRFC3339(Date(timeIntervalSince1970: last.t)))
        }
    }

    @Test(
        "failed group commits acknowledge nothing and leave no trace: retried, every device's events are an uninterrupted engine's",
        arguments: StoreKind.allCases)
    func failedCommits(_ kind: StoreKind) async throws {
        let failing = FailingStore.Box()
        try await TestDatabase.with(kind) { db in
            try await Harness.run(database: db.location, wrap: { failing.wrap($0, failing: [3, 8, 9, 15, 25]) }) { h in
                let key = try await h.key("acme")
                let features = (0..<Self.devices).map { d in
                    circleFeature("c\(d)", lat: 31.0 + Double(d) * 0.01, lon: 121.0, radius: 300)
                }
                let imported = try await h.call(
                    .POST, "/v1/regions/import", key: key,
                    body: #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
                #expect(imported.status == 200, "\(imported)")
                // Every device sends its fixes one at a time, all devices at once; a 5xx is
                // retried with the same fix until it is acknowledged.
                let outcome = try await withThrowingTaskGroup(of: (events: [String], failures: Int).self) { group in
                    for d in 0..<Self.devices {
                        group.addTask {
                            var events: [String] = []
                            var failures = 0
                            for i in 0..<Self.fixesPerDevice {
                                let f = Self.fix(device: d, index: i)
                                while true {
                                    let r = try await h.call(
                                        .POST, "/v1/devices/dev-\(d)/locations", key: key,
                                        body: fixJSON(f.lat, f.lon, t: f.t, accuracy: 8))
                                    if r.status >= 500 {
                                        failures += 1
                                        continue
                                    }
                                    // Never answered as a duplicate: a failed commit left nothing behind.
                                    #expect(r.status == 200 && r["duplicate"] == nil, "\(r)")
                                    for e in r["events"]?.array ?? [] {
                                        guard case .object(let o) = e else { continue }
                                        events.append(
                                            "\(o["device"]?.string ?? "") \(o["region"]?.string ?? "") \(o["event"]?.string ?? "") \(o["time"]?.string ?? "")"
                                        )
                                    }
                                    break
                                }
                            }
                            return (events, failures)
                        }
                    }
                    var all: (events: [String], failures: Int) = ([], 0)
                    for try await part in group {
                        all.events += part.events
                        all.failures += part.failures
                    }
                    return all
                }
                #expect((failing.wrapped?.commitCalls ?? 0) >= 25)
                #expect(outcome.failures >= 5) // each injected failure failed at least its own request
                let expected = try Self.expectedEvents(policy: ServerConfiguration().policy)
                #expect(outcome.events.sorted() == expected)
                let page = try await h.call(.GET, "/v1/events?after=0&limit=1000", key: key)
                #expect(page["events"]?.array?.count == expected.count)
                // The journal replays to the same engine: a restart changes nothing.
                let journal = try await h.server.store.journal(tenant: "acme")
                let fixCount = journal.reduce(0) { n, e in if case .fixes(let f) = e { n + f.count } else { n } }
                #expect(fixCount == Self.devices * Self.fixesPerDevice)
            }
        }
    }

    @Test(
        "commitFixBatches commits batches in order with their own events, cursors and deliveries",
        arguments: StoreKind.allCases)
    func storeBatches(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            try await store.addWebhook(
                Webhook(id: "w1", tenant: "t", url: "http://127.0.0.1:1/", secret: "s"), now: Date())
            func fix(_ device: String, _ t: Double) throws -> LocationFix {
                LocationFix(
                    subject: device, coordinate: try Coordinate(latitude: 1, longitude: 2),
                    timestamp: Date(timeIntervalSince1970: t))
            }
            func event(_ id: String, _ f: LocationFix) -> StoredEvent {
                StoredEvent(
                    id: id, tenant: "t",
                    event: TransitionEvent(
                        kind: .enter, regionID: "r", subject: f.subject, fix: f,
                        time: f.timestamp, crossedAt: f.timestamp))
            }
            let a1 = try fix("a", 10)
            let b1 = try fix("b", 11)
            let a2 = try fix("a", 12)
            let a3 = try fix("a", 13)
            let out = try await store.commitFixBatches(
                tenant: "t",
                [
                    FixBatch(device: "a", fixes: [a1], events: [event("e1", a1)]),
                    FixBatch(device: "b", fixes: [b1], events: []),
                    FixBatch(device: "a", fixes: [a2, a3], events: [event("e2", a2), event("e3", a3)]),
                ], now: Date())
            #expect(out.map { $0.map(\.id) } == [["e1"], [], ["e2", "e3"]])
            #expect(out.map { $0.map(\.cursor) } == [[1], [], [2, 3]])
            #expect(
                try await store.events(tenant: "t", after: 0, limit: 10).compactMap { e -> String? in
                    if case .object(let o) = e, case .string(let id)? = o["id"] { return id } else { return nil }
                } == ["e1", "e2", "e3"])
            #expect(
                try await store.dueDeliveries(now: Date().addingTimeInterval(1), limit: 10).map(\.eventID).sorted() == [
                    "e1", "e2", "e3",
                ])
            let journal = try await store.journal(tenant: "t")
            let batches = journal.compactMap { entry -> [LocationFix]? in
                if case .fixes(let f) = entry { f } else { nil }
            }
            #expect(batches == [[a1], [b1], [a2, a3]])
            try await store.close()
        }
    }

    @Test("the batches of one commit are all or nothing (PostgreSQL: one statement)", arguments: StoreKind.allCases)
    func atomicGroup(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            #expect(store.commitsBatchesAtomically)
            _ = try await store.journal(tenant: "t")
            let f1 = LocationFix(
                subject: "a", coordinate: try Coordinate(latitude: 1, longitude: 2),
                timestamp: Date(timeIntervalSince1970: 10))
            let f2 = LocationFix(
                subject: "b", coordinate: try Coordinate(latitude: 1, longitude: 2),
                timestamp: Date(timeIntervalSince1970: 11))
            let ev = TransitionEvent(
                kind: .enter, regionID: "r", subject: "a", fix: f1, time: f1.timestamp, crossedAt: f1.timestamp)
            // The second batch repeats the first one's event id (UNIQUE in the outbox): nothing is written.
            await #expect(throws: (any Error).self) {
                _ = try await store.commitFixBatches(
                    tenant: "t",
                    [
                        FixBatch(device: "a", fixes: [f1], events: [StoredEvent(id: "e1", tenant: "t", event: ev)]),
                        FixBatch(device: "b", fixes: [f2], events: [StoredEvent(id: "e1", tenant: "t", event: ev)]),
                    ], now: Date())
            }
            #expect(try await store.journal(tenant: "t").isEmpty)
            #expect(try await store.events(tenant: "t", after: 0, limit: 10).isEmpty)
            // No device row moved either: the same batches with distinct ids commit (on PostgreSQL a
            // moved version would refuse them as stale), and cursors start at 1.
            let out = try await store.commitFixBatches(
                tenant: "t",
                [
                    FixBatch(device: "a", fixes: [f1], events: [StoredEvent(id: "e1", tenant: "t", event: ev)]),
                    FixBatch(device: "b", fixes: [f2], events: [StoredEvent(id: "e2", tenant: "t", event: ev)]),
                ], now: Date())
            #expect(out.map { $0.map(\.cursor) } == [[1], [2]])
            #expect(try await store.journal(tenant: "t").count == 2)
            try await store.close()
        }
    }
}
