import Crypto
import Foundation
import PushStandIns

/// What a `geofence serve` child process needs to send to APNs stand-ins: the stand-ins, which
/// trust one team signing key, and a scratch directory with that key (`AuthKey.p8`) and the
/// server configurations that point at them.
struct ChildPushSetup {
    let fixture: PushFixture
    let standIns: [APNsStandIn]
    let directory: URL
    let p8: URL

    /// The first stand-in (most tests start one).
    var standIn: APNsStandIn { standIns[0] }

    /// Runs `body` with `count` fresh stand-ins and a scratch directory; shuts the stand-ins down
    /// and removes the directory afterwards, whether `body` throws or not.
    static func with<T: Sendable>(standIns count: Int = 1, _ body: (ChildPushSetup) async throws -> T) async throws -> T
    {
        let fixture = try PushFixture()
        let signingKey = P256.Signing.PrivateKey()
        var standIns: [APNsStandIn] = []
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "geofence-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            for _ in 0..<count {
                standIns.append(
                    try await APNsStandIn.start(
                        keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: signingKey.publicKey,
                        topics: [PushFixture.topic], certificate: fixture.certificate, clock: { Date() }))
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let p8 = directory.appendingPathComponent("AuthKey.p8")
            try Data(signingKey.pemRepresentation.utf8).write(to: p8)
            let setup = ChildPushSetup(fixture: fixture, standIns: standIns, directory: directory, p8: p8)
            let value = try await body(setup)
            for s in standIns { try await s.shutdown() }
            return value
        } catch {
            for s in standIns { try? await s.shutdown() }
            throw error
        }
    }

    /// Writes a server configuration that sends to `standIn` with the team's key, polling every
    /// 50 ms; returns its path.
    func configuration(for standIn: APNsStandIn, named name: String = "server.json") throws -> URL {
        let file = directory.appendingPathComponent(name)
        let notifications = """
            {"notifications":{"apns":{"teamID":"\(PushFixture.teamID)","keyID":"\(PushFixture.keyID)",\
            "privateKeyPath":"\(p8.path)","endpoint":"\(standIn.baseURL)"},\
            "additionalTrustRootsPath":"\(fixture.certificate.certificate)","pollIntervalMilliseconds":50}}
            """
        try Data(notifications.utf8).write(to: file)
        return file
    }
}
