import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PushStandIns
import Testing

@testable import GeofenceServer

/// A real `geofence serve` (a child process) sends to the APNs stand-in, is SIGKILLed after
/// APNs accepted a notification and before the delivery log recorded it (the
/// `notification-after-send` failpoint), and is started again: the notification goes out a
/// second time, when its lease runs out, with the same `apns-id` and `apns-collapse-id`, so the
/// phone replaces the first rather than showing two.
@Suite("Notifications across a SIGKILL between the push service's answer and the log")
struct NotificationCrashTests {
    static let device = "alice-phone"

    @Test(
        "killed after APNs's 200, before the log's update: the restarted server re-sends with the same apns-id and collapse id",
        .timeLimit(.minutes(5)), arguments: StoreKind.allCases)
    func resendAfterKill(_ store: StoreKind) async throws {
        try await ChildPushSetup.with { setup in
            try await TestDatabase.with(store) { db in try await Self.killAndResend(db, setup) }
        }
    }

    static func killAndResend(_ db: TestDatabase, _ setup: ChildPushSetup) async throws {
        let standIn = setup.standIn
        let (arguments, key) = try await serverArguments(db, setup)

        // First life: stalls right after APNs's answer, and is killed there.
        let first = try await ChildServer.start(
            arguments, environment: ["GEOFENCE_FAILPOINTS": Failpoint.notificationAfterSend.rawValue])
        defer { if first.process.isRunning { first.kill() } }
        try await seed(first.baseURL, key: key)
        let reached = try await first.waitForOutput("failpoint reached: notification-after-send", timeout: .seconds(60))
        first.kill()
        try #require(reached, "the server never reached the failpoint: \(first.log.suffix(800))")
        let delivered = try #require(standIn.accepted.first, "APNs never saw the notification")
        #expect(standIn.accepted.count == 1)
        #expect(first.log.contains("failpoint reached: notification-after-send message \(delivered.apnsID)"))
        #expect(delivered.deviceToken == PushFixture.deviceToken && delivered.topic == PushFixture.topic)
        let collapseID = try #require(delivered.collapseID)

        // Second life: the notification is still pending in the log; when its lease ends it is
        // sent again, with the provider token the first life stored (a new one within 20
        // minutes would be refused as TooManyProviderTokenUpdates).
        let second = try await ChildServer.start(arguments)
        defer { if second.process.isRunning { second.kill() } }
        let leaseAndMargin = Duration.seconds(Int64(notificationLeaseSeconds) + 60)
        let resent = try await CrashSafetyTests.wait(timeout: leaseAndMargin) { standIn.accepted.count >= 2 }
        try #require(resent, "no re-send: \(standIn.refusals) \(second.log.suffix(800))")
        let again = standIn.accepted[1]
        #expect(again.apnsID == delivered.apnsID)
        #expect(again.collapseID == collapseID)
        #expect(again.deviceToken == delivered.deviceToken && again.payload == delivered.payload)
        #expect(standIn.accepted.count == 2)

        // The log: one notification, delivered.
        let recorded = try await CrashSafetyTests.wait(timeout: .seconds(10)) {
            let log = try? await CrashSafetyTests.get(
                second.baseURL, "/v1/devices/\(device)/notifications", key: key)
            return log?["notifications"]?.array?.first?["state"]?.string == "delivered"
        }
        let log = try await CrashSafetyTests.get(second.baseURL, "/v1/devices/\(device)/notifications", key: key)
        let entries = log["notifications"]?.array ?? []
        #expect(recorded && entries.count == 1, "\(log)")
        #expect(entries.first?["messageId"]?.string == delivered.apnsID)
        // The send before the kill was never recorded: the log counts the one it knows of.
        #expect(entries.first?["attempts"]?.number == 1)
        #expect(try await second.terminate() == 0)
    }

    @Test(
        "SQLite, killed between the worker's file and the store's queue: the restarted server sends the entry once",
        .timeLimit(.minutes(5)), arguments: [Failpoint.notificationPlanned, .notificationUnqueued])
    func killedInTheHandOver(_ point: Failpoint) async throws {
        try await ChildPushSetup.with { setup in
            try await TestDatabase.with(.sqlite) { db in try await Self.killInHandOver(db, setup, at: point) }
        }
    }

    static func killInHandOver(_ db: TestDatabase, _ setup: ChildPushSetup, at point: Failpoint) async throws {
        let standIn = setup.standIn
        let (arguments, key) = try await serverArguments(db, setup)

        // First life: planned the entry, killed before the hand-over finished; nothing sent.
        let first = try await ChildServer.start(arguments, environment: ["GEOFENCE_FAILPOINTS": point.rawValue])
        defer { if first.process.isRunning { first.kill() } }
        try await seed(first.baseURL, key: key)
        let reached = try await first.waitForOutput(
            "failpoint reached: \(point.rawValue) events 1", timeout: .seconds(60))
        first.kill()
        try #require(reached, "the server never reached the failpoint: \(first.log.suffix(800))")
        #expect(standIn.accepted.isEmpty)

        // Second life: the entry goes out once, and the hand-over is finished.
        let second = try await ChildServer.start(arguments)
        defer { if second.process.isRunning { second.kill() } }
        let sent = try await CrashSafetyTests.wait(timeout: .seconds(60)) {
            let log = try? await CrashSafetyTests.get(
                second.baseURL, "/v1/devices/\(device)/notifications", key: key)
            return log?["notifications"]?.array?.first?["state"]?.string == "delivered"
        }
        #expect(sent, "\(standIn.refusals) \(second.log.suffix(800))")
        let log = try await CrashSafetyTests.get(second.baseURL, "/v1/devices/\(device)/notifications", key: key)
        #expect((log["notifications"]?.array ?? []).count == 1, "\(log)")
        #expect(try await second.terminate() == 0)
        #expect(standIn.accepted.count == 1)

        // Off the queue and no longer marked: nothing left to plan.
        let store = try await SQLiteStore.open(path: db.location)
        #expect(try await SQLiteLedgerTests.queued(store) == 0)
        #expect(try await SQLiteLedgerTests.planned(store) == 0)
        try await store.close()
    }

    /// `geofence serve`'s arguments for `db`, sending to the setup's stand-in, and an admin key
    /// of tenant `acme`.
    static func serverArguments(_ db: TestDatabase, _ setup: ChildPushSetup) async throws -> ([String], String) {
        let config = try setup.configuration(for: setup.standIn)
        let key = try await ChildServer.runToCompletion([
            "serve", "create-key", "--tenant", "acme", "--database", db.location,
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        return (["--database", db.location, "--config", config.path], key)
    }

    /// The seed's region and an entry rule; the phone's token; a walk into the region.
    static func seed(_ base: String, key: String) async throws {
        let region = circleFeature("bund", lat: 31.239394, lon: 121.499781, radius: 2_000)
        #expect(try await send(.PUT, base, "/v1/regions/bund", key: key, body: region) == 201)
        try await ruleAndToken(base, key: key, device: device)
        #expect(try await walkIntoTheBund(base, key: key, device: device) == 1)
    }

    /// An entry rule and the device's APNs token.
    static func ruleAndToken(_ base: String, key: String, device: String) async throws {
        let rule = #"{"id":"welcome","events":["enter"],"title":"Welcome to {region.id}"}"#
        #expect(try await send(.POST, base, "/v1/notification-rules", key: key, body: rule) == 201)
        let token = #"{"service":"apns","topic":"\#(PushFixture.topic)","environment":"production"}"#
        let tokenPath = "/v1/devices/\(device)/push-tokens/\(PushFixture.deviceToken)"
        #expect(try await send(.PUT, base, tokenPath, key: key, body: token) == 200)
    }

    /// One request: outside, then six fixes 10 s apart 100 m north of the Bund's centre, ten
    /// minutes ago (the server refuses fixes from its future); how many events it committed.
    static func walkIntoTheBund(_ base: String, key: String, device: String) async throws -> Int {
        let start = Date().addingTimeInterval(-600)
        func fix(latitude: Double, seconds: Double) -> String {
            let time = FixJSON.formatRFC3339(start.addingTimeInterval(seconds))
            return #"{"latitude":\#(latitude),"longitude":121.499781,"timestamp":"\#(time)","horizontalAccuracy":8}"#
        }
        let fixes =
            [fix(latitude: 31.269394, seconds: 0)] + (1...6).map { fix(latitude: 31.240394, seconds: 10 * Double($0)) }
        let answer = try await CrashSafetyTests.post(
            base, "/v1/devices/\(device)/locations", key: key, body: #"{"fixes":[\#(fixes.joined(separator: ","))]}"#)
        #expect(answer.status == 200, "\(String(describing: answer.json))")
        return answer.json?["events"]?.array?.count ?? 0
    }

    static func send(
        _ method: HTTPMethod, _ base: String, _ path: String, key: String, body: String
    ) async throws
        -> Int
    {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(key)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await CrashSafetyTests.client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}
