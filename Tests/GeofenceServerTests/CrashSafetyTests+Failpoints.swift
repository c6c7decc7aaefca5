import Foundation
import GeofenceServer
import Geofencing
import Testing

/// Kills during a snapshot, forced: `geofence serve` runs with a failpoint armed
/// (`GEOFENCE_FAILPOINTS`, docs/server.md "Failpoints (testing)"), stalls exactly there in its
/// first or second snapshot, and is SIGKILLed while stalled — while the tenant's ingestion goes
/// on, since a snapshot holds the tenant only to read its position.
extension CrashSafetyTests {
    /// Which snapshot the store must hold after a kill at the failpoint.
    enum SurvivingSnapshot: Sendable {
        /// None: the kill interrupted the first snapshot before it committed.
        case none
        /// The one before the interrupted snapshot: it covers less than the interrupted one.
        case previous
        /// The interrupted snapshot itself: it had committed, at the position it announced.
        case interrupted
    }

    struct ForcedKill: Sendable, CustomTestStringConvertible {
        /// The value of `GEOFENCE_FAILPOINTS`: a failpoint, `@2` to stall at the second snapshot.
        var failpoints: String
        var surviving: SurvivingSnapshot
        var testDescription: String { failpoints }
        var name: String { String(failpoints.prefix { $0 != "@" }) }

        static let all = [
            ForcedKill(failpoints: "snapshot-after-export", surviving: .none),
            ForcedKill(failpoints: "snapshot-after-export@2", surviving: .previous),
            ForcedKill(failpoints: "snapshot-before-commit", surviving: .none),
            ForcedKill(failpoints: "snapshot-before-commit@2", surviving: .previous),
            ForcedKill(failpoints: "snapshot-after-commit", surviving: .interrupted),
        ]
    }

    /// Forced-kill load: 3 devices of the SIGKILL test's rows, 16 batches of 40 fixes each, a
    /// snapshot every 6 batches (240 fixes).
    static let forcedDevices = 3
    static let forcedBatches = 16
    static let forcedSnapshotEvery = 240

    /// What the store holds after the kill: its snapshot, how many journal entries follow it,
    /// and every stored fix's time per device.
    struct StoreContents {
        var snapshot: StoredSnapshot?
        var entriesAfterSnapshot: Int
        var fixTimes: [String: [Double]]
    }

    static func contents(of database: String) async throws -> StoreContents {
        let store = try await GeofenceServer.openStore(database, logger: Harness.quietLogger())
        let fromSnapshot = try await store.startupJournal(tenant: "crash", useSnapshot: true)
        let whole = try await store.startupJournal(tenant: "crash", useSnapshot: false)
        try await store.close()
        var times: [String: [Double]] = [:]
        for case .fixes(let fixes) in whole.tail {
            for f in fixes { times[f.subject, default: []].append(f.timestamp.timeIntervalSince1970) }
        }
        return StoreContents(
            snapshot: fromSnapshot.snapshot, entriesAfterSnapshot: fromSnapshot.tail.count, fixTimes: times)
    }

    /// The stored events as sorted `"device region kind time"` lines, and each device's inside set.
    static func observed(_ server: ChildServer, key: String) async throws -> (events: [String], inside: [String]) {
        let events = try await storedEvents(server.baseURL, key: key).map { e in
            "\(e["device"]?.string ?? "?") \(e["region"]?.string ?? "?") \(e["event"]?.string ?? "?") \(e["time"]?.string ?? "?")"
        }
        var inside: [String] = []
        for d in 0..<forcedDevices {
            let state = try await get(server.baseURL, "/v1/devices/dev-\(d)/state", key: key)
            inside.append("dev-\(d) \((state["inside"]?.array ?? []).compactMap(\.string).sorted())")
        }
        return (events.sorted(), inside)
    }

    /// Sends each device's batches in order, one in flight per device, until one is not
    /// acknowledged; records what was.
    static func sendLoad(to server: ChildServer, key: String, ledger: Ledger) async {
        await withTaskGroup(of: Void.self) { group in
            for d in 0..<forcedDevices {
                group.addTask {
                    for b in 0..<forcedBatches {
                        let answer = try? await post(
                            server.baseURL, "/v1/devices/dev-\(d)/locations", key: key,
                            body: batchBody(device: d, batch: b))
                        guard let answer, answer.status == 200 else {
                            await ledger.unanswered(device: d, batch: b, status: answer?.status)
                            return
                        }
                        let ids = (answer.json?["events"]?.array ?? []).compactMap { $0["id"]?.string }
                        _ = await ledger.acknowledge(events: ids, killAfter: .max)
                    }
                }
            }
        }
    }

    /// A fresh directory holding the `server.json` of the forced tests: a snapshot every
    /// `forcedSnapshotEvery` fixes, with no share bound (the tests want every one of them).
    static func forcedConfigDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-fp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(#"{"snapshotEveryFixes":\#(forcedSnapshotEvery),"snapshotMaximumShare":1}"#.utf8).write(
            to: dir.appendingPathComponent("server.json"))
        return dir
    }

    /// The journal position a failpoint announced (`failpoint reached: NAME position N`).
    static func announcedPosition(in log: String, failpoint: String) -> Int64? {
        let marker = "failpoint reached: \(failpoint) position "
        guard let range = log.range(of: marker) else { return nil }
        return Int64(log[range.upperBound...].prefix { $0.isNumber })
    }

    /// Polls `condition` until it holds (true) or `timeout` passes (false).
    static func wait(timeout: Duration, until condition: () async -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return await condition()
    }

    @Test(
        "a SIGKILL at a snapshot failpoint loses no acknowledged batch; the restart sees the old snapshot or the new one, never part of one",
        arguments: ForcedKill.all, StoreKind.allCases)
    func sigkillAtSnapshotFailpoint(_ kill: ForcedKill, store: StoreKind) async throws {
        try await TestDatabase.with(store) { db in
            let dir = try Self.forcedConfigDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = dir.appendingPathComponent("server.json").path
            let arguments = ["--database", db.location, "--config", config]
            let key = try await ChildServer.runToCompletion([
                "serve", "create-key", "--tenant", "crash", "--database", db.location,
            ])
            .trimmingCharacters(in: .whitespacesAndNewlines)
            let policy = ServerConfiguration().policy
            let fixesPerDevice = Self.forcedBatches * Self.fixesPerBatch

            // First life: the failpoint armed; the load runs until the server stalls there.
            let first = try await ChildServer.start(arguments, environment: ["GEOFENCE_FAILPOINTS": kill.failpoints])
            defer { if first.process.isRunning { first.kill() } }
            #expect(first.log.contains("failpoints armed"), "\(first.log.suffix(600))")
            try await Self.importRegions(to: first.baseURL, key: key)
            let ledger = Ledger()
            async let load: Void = Self.sendLoad(to: first, key: key, ledger: ledger)
            let reached = try await first.waitForOutput("failpoint reached: \(kill.name)", timeout: .seconds(60))
            // Stalled there, the snapshot no longer holds the tenant: batches go on being
            // committed — except inside SQLite's transaction, which holds its one connection.
            let expectsProgress = kill.name != "snapshot-before-commit" || store == .postgres
            let bound = await ledger.acknowledged + Self.forcedDevices
            var overtaken = false
            if expectsProgress {
                overtaken = try await Self.wait(timeout: .seconds(10)) { await ledger.acknowledged > bound }
            }
            first.kill()
            await load
            try #require(reached, "the server never reached \(kill.name): \(first.log.suffix(600))")
            let announced = try #require(
                Self.announcedPosition(in: first.log, failpoint: kill.name), "\(first.log.suffix(600))")
            if expectsProgress {
                #expect(overtaken, "no batch was committed while the snapshot stood at \(kill.name)")
            }
            #expect(first.process.terminationStatus == 128 + SIGKILL)
            let acknowledgedIDs = await ledger.eventIDs
            let resumeAt = await ledger.firstUnacknowledged
            let refusals = await ledger.refusals
            #expect(refusals.isEmpty, "answered but refused: \(refusals)")

            // The store after the kill: every acknowledged batch, at most the one in flight more,
            // each device's fixes a prefix of its track; the snapshot the case expects.
            let stored = try await Self.contents(of: db.location)
            var held: [Int] = []
            for d in 0..<Self.forcedDevices {
                let times = stored.fixTimes["dev-\(d)"] ?? []
                let acknowledged = (resumeAt[d] ?? Self.forcedBatches) * Self.fixesPerBatch
                #expect(
                    times == (0..<times.count).map { Self.fix(device: d, index: $0).t },
                    "dev-\(d): the stored fixes are not the first \(times.count) of its track")
                #expect(
                    times.count == acknowledged || times.count == acknowledged + Self.fixesPerBatch,
                    "dev-\(d): \(acknowledged) fixes acknowledged, \(times.count) stored")
                held.append(times.count)
            }
            switch kill.surviving {
            case .none:
                #expect(
                    stored.snapshot == nil, "a snapshot survived at \(String(describing: stored.snapshot?.position))")
            case .previous:
                let kept = try #require(stored.snapshot, "the snapshot before the interrupted one is gone")
                #expect(kept.position < announced, "the stored snapshot is the interrupted one (\(announced))")
            case .interrupted:
                #expect(stored.snapshot?.position == announced, "the committed snapshot at \(announced) is gone")
            }

            // Second life, no failpoint: the engine is what an uninterrupted one makes of the
            // batches the store holds, loaded from the surviving snapshot if any.
            let second = try await ChildServer.start(arguments)
            defer { if second.process.isRunning { second.kill() } }
            let fromSnapshot = stored.snapshot == nil ? "fromSnapshots=0" : "fromSnapshots=1"
            #expect(second.log.contains(fromSnapshot), "\(second.log.suffix(600))")
            let reference = try ReferenceEngine.run(regions: Self.regions(), policy: policy, fixesPerDevice: held) {
                Self.fix(device: $0, index: $1)
            }
            let afterRestart = try await Self.observed(second, key: key)
            #expect(afterRestart.events == reference.events)
            #expect(afterRestart.inside == reference.inside)
            let idsAfterRestart = Set(
                try await Self.storedEvents(second.baseURL, key: key).compactMap { $0["id"]?.string })
            #expect(acknowledgedIDs.isSubset(of: idsAfterRestart), "acknowledged events lost")

            // The clients re-send their unanswered batch and finish; snapshots are taken again.
            for d in 0..<Self.forcedDevices {
                for b in (resumeAt[d] ?? Self.forcedBatches)..<Self.forcedBatches {
                    let answer = try await Self.post(
                        second.baseURL, "/v1/devices/dev-\(d)/locations", key: key,
                        body: Self.batchBody(device: d, batch: b))
                    #expect(answer.status == 200, "dev-\(d) batch \(b) after restart: \(answer.status)")
                }
            }
            let whole = try ReferenceEngine.run(
                regions: Self.regions(), policy: policy,
                fixesPerDevice: Array(repeating: fixesPerDevice, count: Self.forcedDevices)
            ) { Self.fix(device: $0, index: $1) }
            #expect(try await Self.observed(second, key: key) == whole)
            #expect(try await second.terminate() == 0)

            // A snapshot written after the restart covers more than the surviving one, and a
            // third life starts from it with the same engine.
            let later = try await Self.contents(of: db.location).snapshot
            #expect((later?.position ?? 0) > (stored.snapshot?.position ?? 0), "no snapshot after the restart")
            let third = try await ChildServer.start(arguments)
            defer { if third.process.isRunning { third.kill() } }
            #expect(third.log.contains("fromSnapshots=1"), "\(third.log.suffix(600))")
            #expect(try await Self.observed(third, key: key) == whole)
            #expect(try await third.terminate() == 0)
            print(
                "forced kill at \(kill.failpoints) (\(store.testDescription)): held \(held) fixes per device, "
                    + "snapshot at kill: \(stored.snapshot.map { "position \($0.position), \(stored.entriesAfterSnapshot) entries after" } ?? "none"), "
                    + "later snapshot: position \(later?.position ?? 0), \(whole.events.count) events")
        }
    }

    /// A tenant's snapshot does not hold up other tenants: while it stands at the failpoint, another
    /// tenant's batches are answered and survive the kill, and `/health` answers. (On SQLite a
    /// stall inside the store's transaction holds its one connection, so `snapshot-before-commit`
    /// runs on PostgreSQL only.)
    @Test(
        "while one tenant's snapshot stands still, another tenant's batches are answered and survive the kill",
        arguments: [
            ("snapshot-after-export", StoreKind.sqlite), ("snapshot-after-export", .postgres),
            ("snapshot-before-commit", .postgres),
        ])
    func otherTenantIngestsDuringSnapshot(_ failpoint: String, store: StoreKind) async throws {
        try await TestDatabase.with(store) { db in
            let dir = try Self.forcedConfigDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = dir.appendingPathComponent("server.json").path
            let arguments = ["--database", db.location, "--config", config]
            func key(_ tenant: String) async throws -> String {
                try await ChildServer.runToCompletion([
                    "serve", "create-key", "--tenant", tenant, "--database", db.location,
                ])
                .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let (stalled, other) = (try await key("crash"), try await key("other"))

            let first = try await ChildServer.start(arguments, environment: ["GEOFENCE_FAILPOINTS": failpoint])
            defer { if first.process.isRunning { first.kill() } }
            for k in [stalled, other] { try await Self.importRegions(to: first.baseURL, key: k) }
            let ledger = Ledger()
            async let load: Void = Self.sendLoad(to: first, key: stalled, ledger: ledger)
            let reached = try await first.waitForOutput("failpoint reached: \(failpoint)", timeout: .seconds(60))
            try #require(reached, "the server never reached \(failpoint): \(first.log.suffix(600))")
            // Three batches of the other tenant: 120 fixes, below its own snapshot threshold.
            var answeredIDs: Set<String> = []
            for b in 0..<3 {
                let answer = try await Self.post(
                    first.baseURL, "/v1/devices/dev-0/locations", key: other, body: Self.batchBody(device: 0, batch: b))
                #expect(answer.status == 200, "the other tenant's batch \(b): \(answer.status)")
                answeredIDs.formUnion((answer.json?["events"]?.array ?? []).compactMap { $0["id"]?.string })
            }
            #expect(try await Self.get(first.baseURL, "/health", key: other)["status"] == .string("ok"))
            first.kill()
            await load

            let second = try await ChildServer.start(arguments)
            defer { if second.process.isRunning { second.kill() } }
            let reference = try ReferenceEngine.run(
                regions: Self.regions(), policy: ServerConfiguration().policy, fixesPerDevice: [3 * Self.fixesPerBatch]
            ) { Self.fix(device: $0, index: $1) }
            try #require(reference.events.count >= 2, "the other tenant's batches must make events to lose")
            let stored = try await Self.storedEvents(second.baseURL, key: other)
            #expect(answeredIDs == Set(stored.compactMap { $0["id"]?.string }))
            let state = try await Self.get(second.baseURL, "/v1/devices/dev-0/state", key: other)
            #expect(["dev-0 \((state["inside"]?.array ?? []).compactMap(\.string).sorted())"] == reference.inside)
            #expect(stored.count == reference.events.count)
            #expect(try await second.terminate() == 0)
        }
    }
}
