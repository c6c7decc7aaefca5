import Foundation
import PushStandIns
import Testing

@testable import GeofenceServer

/// Two `geofence serve` processes on one PostgreSQL share the notification queue: each event is
/// planned and pushed once, whichever process takes it, and both take some.
@Suite("Notifications from two server processes on one PostgreSQL")
struct NotificationInstancesTests {
    static let device = "alice-phone"
    static let entries = 1_000

    @Test(
        "two processes, 1,000 entries in one request: 1,000 pushes, none twice, sent by both",
        .timeLimit(.minutes(5)))
    func twoProcesses() async throws {
        try await ChildPushSetup.with(standIns: 2) { setup in
            try await TestDatabase.with(.postgres) { db in try await Self.run(db, setup) }
        }
    }

    static func run(_ db: TestDatabase, _ setup: ChildPushSetup) async throws {
        // One stand-in per process: what each accepted shows that both sent.
        let standIns = setup.standIns
        let key = try await ChildServer.runToCompletion([
            "serve", "create-key", "--tenant", "acme", "--database", db.location,
        ])
        .trimmingCharacters(in: .whitespacesAndNewlines)
        var servers: [ChildServer] = []
        defer { for s in servers where s.process.isRunning { s.kill() } }
        for (i, standIn) in standIns.enumerated() {
            let config = try setup.configuration(for: standIn, named: "server-\(i).json")
            servers.append(try await ChildServer.start(["--database", db.location, "--config", config.path]))
        }
        let base = servers[0].baseURL
        try await seed(base, key: key)

        let all = try await CrashSafetyTests.wait(timeout: .seconds(120)) {
            standIns.map(\.acceptedCount).reduce(0, +) >= entries
        }
        // Time for a second copy of any push to arrive (the workers poll every 50 ms).
        try await Task.sleep(for: .seconds(2))
        let accepted = standIns.flatMap(\.accepted)
        print("[two processes] pushes accepted per process: \(standIns.map(\.acceptedCount))")
        #expect(all, "\(accepted.count) pushes; refusals \(standIns.map(\.refusals))")
        #expect(accepted.count == entries)
        #expect(Set(accepted.map(\.apnsID)).count == entries)
        #expect(Set(accepted.map(\.collapseID)).count == entries)
        #expect(standIns.allSatisfy { $0.acceptedCount > 0 }, "\(standIns.map(\.acceptedCount))")
        #expect(standIns.allSatisfy { $0.refusals.isEmpty }, "\(standIns.map(\.refusals))")
        for s in servers { #expect(try await s.terminate() == 0) }
    }

    /// 1,000 overlapping circles, an entry rule, the phone's token, and one request in which
    /// the phone walks into all of them.
    static func seed(_ base: String, key: String) async throws {
        let features = (0..<entries).map { i in
            circleFeature("c\(i)", lat: 31.239394, lon: 121.499781, radius: 2_000 + Double(i % 500))
        }
        let collection = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#
        let imported = try await CrashSafetyTests.post(base, "/v1/regions/import", key: key, body: collection)
        #expect(imported.status == 200, "\(String(describing: imported.json))")
        try await NotificationCrashTests.ruleAndToken(base, key: key, device: device)
        #expect(try await NotificationCrashTests.walkIntoTheBund(base, key: key, device: device) == entries)
    }
}
