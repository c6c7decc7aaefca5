import Foundation
import Testing

@testable import GeofenceServer

/// `geofence serve` with push credentials it cannot use refuses to start, naming the key and the
/// file, rather than running and logging every notification `unconfigured`.
@Suite("geofence serve refuses push credentials it cannot use")
struct NotificationCredentialTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The `notifications` object, with `DIR` standing for a fresh directory.
        var notifications: String
        var files: [String: String] = [:]
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases = [
        Case(
            name: "a missing .p8",
            notifications: #"{"apns":{"teamID":"T","keyID":"K","privateKeyPath":"DIR/AuthKey_missing.p8"}}"#,
            expected: ["notifications.apns.privateKeyPath", "DIR/AuthKey_missing.p8", "cannot be read"]),
        Case(
            name: "a .p8 that is not a P-256 key",
            notifications: #"{"apns":{"teamID":"T","keyID":"K","privateKeyPath":"DIR/AuthKey.p8"}}"#,
            files: ["AuthKey.p8": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"],
            expected: ["notifications.apns.privateKeyPath", "DIR/AuthKey.p8", "not a P-256 private key"]),
        Case(
            name: "a service account that is not JSON",
            notifications: #"{"fcm":{"serviceAccountPath":"DIR/account.json"}}"#,
            files: ["account.json": "not json"],
            expected: ["notifications.fcm.serviceAccountPath", "DIR/account.json"]),
        Case(
            name: "trust roots that are not certificates",
            notifications: #"{"additionalTrustRootsPath":"DIR/roots.pem"}"#,
            files: ["roots.pem": "hello"],
            expected: ["notifications.additionalTrustRootsPath", "DIR/roots.pem"]),
    ]

    @Test("each unusable credential file stops the start with a message naming it", arguments: cases)
    func refusesToStart(_ c: Case) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-cred-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, text) in c.files { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        let config = dir.appendingPathComponent("server.json")
        let notifications = c.notifications.replacingOccurrences(of: "DIR", with: dir.path)
        try Data(#"{"notifications":\#(notifications)}"#.utf8).write(to: config)
        let database = dir.appendingPathComponent("db.sqlite").path
        do {
            let server = try await ChildServer.start(["--database", database, "--config", config.path])
            server.kill()
            Issue.record("the server started with \(c.name)")
        } catch ChildServerError.didNotStart(let log) {
            for text in c.expected.map({ $0.replacingOccurrences(of: "DIR", with: dir.path) }) {
                #expect(log.contains(text), "\(text) not in: \(log.suffix(600))")
            }
        }
    }

    @Test("with a relay's own trust roots and a key that cannot be read, the start is refused cleanly, not crashed")
    func refusesWithTrustRoots() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-cred-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let roots = try TLSTests.selfSignedCertificate().certificate
        let config = dir.appendingPathComponent("server.json")
        let notifications = """
            {"notifications":{"apns":{"teamID":"T","keyID":"K","privateKeyPath":"\(dir.path)/missing.p8",\
            "endpoint":"https://127.0.0.1:9"},"additionalTrustRootsPath":"\(roots)"}}
            """
        try Data(notifications.utf8).write(to: config)
        let database = dir.appendingPathComponent("db.sqlite").path
        do {
            let server = try await ChildServer.start(["--database", database, "--config", config.path])
            server.kill()
            Issue.record("the server started without its APNs key")
        } catch ChildServerError.didNotStart(let log) {
            #expect(log.contains("notifications.apns.privateKeyPath"), "\(log.suffix(600))")
            #expect(!log.contains("Fatal error"), "\(log.suffix(600))")
        }
    }

    @Test("the configuration file: endpoint, trust roots and the send window read; absurd values refused")
    func configurationKeys() throws {
        func applied(_ notifications: String) throws -> ServerConfiguration {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(#"{"notifications":\#(notifications)}"#.utf8).write(to: file)
            var c = ServerConfiguration()
            try c.apply(configFile: file.path)
            return c
        }
        let apns = #""teamID":"T","keyID":"K","privateKeyPath":"/k.p8""#
        let c = try applied(
            #"{"apns":{\#(apns),"endpoint":"https://127.0.0.1:8443"},"additionalTrustRootsPath":"/ca.pem","sendsInFlight":8}"#
        )
        #expect(c.notifications.apns?.endpoint == "https://127.0.0.1:8443")
        #expect(c.notifications.additionalTrustRootsPath == "/ca.pem")
        #expect(c.notifications.sendsInFlight == 8)
        #expect(ServerConfiguration().notifications.sendsInFlight == 64)
        for (bad, key) in [
            (#"{"apns":{\#(apns),"endpoint":"http://127.0.0.1"}}"#, "notifications"),
            (#"{"apns":{\#(apns),"endpoint":"https://h/path"}}"#, "notifications"),
            (#"{"sendsInFlight":0}"#, "notifications"), (#"{"sendsInFlight":1.5}"#, "notifications"),
            (#"{"sendsInFlight":100000}"#, "notifications"),
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try applied(bad) }
            #expect { try applied(bad) } throws: { ($0 as? ConfigurationError)?.key == key }
        }
    }
}
