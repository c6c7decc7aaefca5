import Crypto
import Foundation
import Glibc
import PushStandIns
import Testing

@testable import GeofenceServer

/// The server's background work (planning and sending notifications) runs at the lowest
/// scheduling priority, and only on its own threads. Linux gives a new thread the priority of
/// the thread that made it, for good: a Dispatch worker or a Swift pool thread started from a
/// background thread would serve the phones' requests at that priority, behind the whole
/// machine. These tests look at every thread of a server that has just sent a burst.
@Suite("Background priority stays on the background threads")
struct BackgroundPriorityTests {
    @Test(
        "a server that sent 1,000 pushes: only its background threads run below normal priority",
        .timeLimit(.minutes(5)), arguments: StoreKind.allCases)
    func onlyBackgroundThreadsAreLowered(_ store: StoreKind) async throws {
        try await ChildPushSetup.with { setup in
            try await TestDatabase.with(store) { db in try await Self.burst(db, setup) }
        }
    }

    static func burst(_ db: TestDatabase, _ setup: ChildPushSetup) async throws {
        let standIn = setup.standIn
        let config = try setup.configuration(for: standIn)
        let key = try await ChildServer.runToCompletion([
            "serve", "create-key", "--tenant", "acme", "--database", db.location,
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ChildServer.start(["--database", db.location, "--config", config.path])
        defer { if server.process.isRunning { server.kill() } }
        try await NotificationInstancesTests.seed(server.baseURL, key: key)
        let all = try await CrashSafetyTests.wait(timeout: .seconds(120)) {
            standIn.acceptedCount >= NotificationInstancesTests.entries
        }
        #expect(all, "\(standIn.acceptedCount) pushes; refusals \(standIn.refusals)")

        let threads = try ThreadScheduling.threads(of: server.process.processIdentifier)
        let lowered = threads.filter(\.isBelowNormal)
        #expect(
            lowered.allSatisfy { $0.name == BackgroundExecutor.threadName },
            "threads below normal priority: \(lowered)")
        // The executor's thread and the push client's event loop did the work, at `SCHED_IDLE`
        // in a `geofence serve` process.
        #expect(lowered.count == 2, "\(lowered)")
        #expect(lowered.allSatisfy { $0.policy == Int(BackgroundExecutor.schedIdle) }, "\(lowered)")
        #expect(threads.count > lowered.count)
        #expect(try await server.terminate() == 0)
    }

    @Test("a store call from a background thread runs on the connection's thread, at normal priority")
    func storeCallsLeaveTheBackground() async throws {
        let store = try await SQLiteStore.open(path: ":memory:")
        let (caller, connection) = try await withTaskExecutorPreference(BackgroundExecutor.shared) {
            let caller = BackgroundExecutor.currentThreadIsBackground
            let connection = try await store.read(.background) { _ in BackgroundExecutor.currentThreadIsBackground }
            return (caller, connection)
        }
        #expect(caller)
        #expect(!connection)
        try await store.close()
    }

    @Test("pushes sent from a background executor queue nothing on Swift's global pool")
    func pushesStayOffTheGlobalPool() async throws {
        try #require(GlobalPoolWatch.installed)
        let watch = GlobalPoolWatch()
        // The watch sees such a job: a task made without a preference on the watched thread.
        let control = await watch.count { await Task {}.value }
        #expect(control.queued >= 1)

        let fixture = try PushFixture()
        let key = P256.Signing.PrivateKey()
        let standIn = try await APNsStandIn.start(
            keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
            topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
        let messages = (0..<100).map { _ in PushFixture.message(to: PushFixture.apnsDestination) }
        let sends = try await fixture.withClient { client in
            let sender = APNsSender(
                credentials: APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                client: client, endpoints: .init(production: "https://unused.invalid", sandbox: standIn.baseURL),
                clock: fixture.clock.closure)
            return await watch.count {
                await withTaskGroup(of: Bool.self) { group in
                    for message in messages { group.addTask { await sender.send(message).isDelivered } }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            }
        }
        try await standIn.shutdown()
        try await watch.shutdown()
        #expect(sends.value == messages.count)
        #expect(sends.queued == 0, "\(sends.queued) jobs queued on the global pool")
    }
}

/// The scheduling of a process's threads, from `/proc/<pid>/task/<tid>/stat` (proc(5)).
struct ThreadScheduling: CustomStringConvertible, Sendable {
    var tid: Int
    var name: String
    var nice: Int
    var policy: Int

    /// `SCHED_IDLE`, or a positive nice value.
    var isBelowNormal: Bool { policy == Int(BackgroundExecutor.schedIdle) || nice > 0 }

    var description: String { "\(tid) \(name) policy \(policy) nice \(nice)" }

    static func threads(of pid: Int32) throws -> [ThreadScheduling] {
        let tasks = "/proc/\(pid)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { tid in
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(tid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the name: field 3 (state) onwards; nice is field 19, policy field 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let nice = Int(fields[16]), let policy = Int(fields[38]) else { return nil }
            return ThreadScheduling(
                tid: Int(tid) ?? 0, name: String(stat[stat.index(after: open)..<close]), nice: nice, policy: policy)
        }
    }
}
