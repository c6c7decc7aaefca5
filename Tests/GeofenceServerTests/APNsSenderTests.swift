import AsyncHTTPClient
import Crypto
import Foundation
import PushStandIns
import Testing

@testable import GeofenceServer

/// `APNsSender` against the APNs stand-in, over HTTP/2 and TLS: what it sends, how long it keeps
/// its provider token, and what it makes of APNs's answers.
@Suite("APNs sender: token-authenticated HTTP/2 requests and their outcomes")
struct APNsSenderTests {
    let fixture: PushFixture
    let key = P256.Signing.PrivateKey()

    init() throws { fixture = try PushFixture() }

    func withSender(_ body: (APNsSender, APNsStandIn) async throws -> Void) async throws {
        let standIn = try await APNsStandIn.start(
            keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
            topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
        do {
            try await fixture.withClient { client in
                let sender = APNsSender(
                    credentials: APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                    client: client, endpoints: .init(production: "https://unused.invalid", sandbox: standIn.baseURL),
                    clock: fixture.clock.closure)
                try await body(sender, standIn)
            }
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    @Test("an alert arrives with its topic, token, apns-id, collapse id, push type, priority and text")
    func deliversAlert() async throws {
        try await withSender { sender, standIn in
            var message = PushFixture.message(to: PushFixture.apnsDestination)
            message.expiresAt = fixture.clock.date.addingTimeInterval(3600)
            let outcome = await sender.send(message)
            #expect(outcome == .delivered(serviceID: message.id.uuidString.lowercased()))
            let accepted = try #require(standIn.accepted.first)
            #expect(accepted.topic == PushFixture.topic)
            #expect(accepted.deviceToken == PushFixture.deviceToken)
            #expect(UUID(uuidString: accepted.apnsID) == message.id)
            #expect(accepted.collapseID == "region-bund")
            #expect(accepted.pushType == "alert" && accepted.priority == "10")
            #expect(accepted.expiration == String(Int64(fixture.clock.date.timeIntervalSince1970) + 3600))
            let alert = accepted.aps["alert"] as? [String: String]
            #expect(alert == ["title": "Low bridge ahead", "body": "3.2 m clearance at Waibaidu"])
            #expect(accepted.json["region"] as? String == "bund")
        }
    }

    @Test("a background notification goes at priority 5 with content-available and no alert")
    func deliversBackground() async throws {
        try await withSender { sender, standIn in
            let message = PushFixture.message(to: PushFixture.apnsDestination, kind: .background, title: nil, body: nil)
            #expect(await sender.send(message) == .delivered(serviceID: message.id.uuidString.lowercased()))
            let accepted = try #require(standIn.accepted.first)
            #expect(accepted.pushType == "background" && accepted.priority == "5")
            #expect(accepted.aps["content-available"] as? Int == 1 && accepted.aps["alert"] == nil)
        }
    }

    @Test("the provider token is re-used for 40 minutes and re-signed before 60, never within 20")
    func providerTokenWindow() async throws {
        try await withSender { sender, standIn in
            let start = fixture.clock.date
            // A send every 10 minutes for three hours: the stand-in refuses a token older than an
            // hour and a new one within 20 minutes of the last, so every send must be accepted.
            for _ in 0..<19 {
                let outcome = await sender.send(PushFixture.message(to: PushFixture.apnsDestination))
                #expect(outcome.isDelivered, "\(outcome) at +\(fixture.clock.date.timeIntervalSince(start)) s")
                fixture.clock.advance(10 * 60)
            }
            let tokens = standIn.accepted.map(\.providerToken)
            #expect(tokens.count == 19)
            // Signed at 0, 40, 80, 120 and 160 minutes: each used for four sends.
            #expect(Set(tokens).count == 5)
            #expect(tokens[0] == tokens[3] && tokens[3] != tokens[4] && tokens[4] == tokens[7])
            let issued = try Set(tokens).map { token in
                try #require((JWT.Parts(token)?.claims["iat"] as? NSNumber)?.doubleValue) - start.timeIntervalSince1970
            }
            #expect(issued.sorted() == [0, 2400, 4800, 7200, 9600])
        }
    }

    @Test(
        "servers on one store share one provider token: a second server, or a restart, takes the one in force",
        arguments: StoreKind.allCases)
    func sharedProviderToken(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await GeofenceServer.openStore(db.location, logger: Harness.quietLogger())
            let shared = try #require(store as? any ProviderTokenStore)
            let standIn = try await APNsStandIn.start(
                keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
                topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
            try await fixture.withClient { client in
                // Two servers' senders: each its own actor, as in two processes.
                let servers = (0..<2).map { _ in
                    APNsSender(
                        credentials: APNsCredentials(
                            keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                        client: client,
                        endpoints: .init(production: "https://unused.invalid", sandbox: standIn.baseURL),
                        clock: fixture.clock.closure, sharedTokens: shared)
                }
                let message = PushFixture.message(to: PushFixture.apnsDestination)
                // The stand-in refuses a new token within 20 minutes of the last, as Apple does.
                #expect(await servers[0].send(message).isDelivered)
                fixture.clock.advance(60)
                #expect(await servers[1].send(message).isDelivered)
                // Past the 40 minutes: the first to send signs anew and the other takes its token.
                fixture.clock.advance(40 * 60)
                #expect(await servers[1].send(message).isDelivered)
                fixture.clock.advance(60)
                #expect(await servers[0].send(message).isDelivered)
                let tokens = standIn.accepted.map(\.providerToken)
                #expect(tokens.count == 4)
                #expect(tokens[0] == tokens[1] && tokens[2] == tokens[3] && tokens[1] != tokens[2])
                #expect(standIn.refusals.isEmpty, "\(standIn.refusals)")
            }
            try await standIn.shutdown()
            try await store.close()
        }
    }

    @Test("410 Unregistered: the token is invalid since APNs's timestamp")
    func unregistered() async throws {
        try await withSender { sender, standIn in
            let since = Date(timeIntervalSince1970: 1_799_000_000.5)
            standIn.unregister(PushFixture.deviceToken, since: since)
            let outcome = await sender.send(PushFixture.message(to: PushFixture.apnsDestination))
            #expect(outcome == .tokenInvalid(reason: "Unregistered", invalidSince: since))
        }
    }

    @Test("BadDeviceToken: a token APNs does not know, and one that is not hexadecimal (never sent)")
    func badDeviceToken() async throws {
        try await withSender { sender, standIn in
            var destination = PushFixture.apnsDestination
            destination.token = String(repeating: "ab", count: 31)
            #expect(
                await sender.send(PushFixture.message(to: destination))
                    == .tokenInvalid(reason: "BadDeviceToken", invalidSince: nil))
            #expect(standIn.refusals == ["BadDeviceToken"])
            destination.token = "../../3/device/" + PushFixture.deviceToken
            #expect(
                await sender.send(PushFixture.message(to: destination))
                    == .tokenInvalid(reason: "BadDeviceToken", invalidSince: nil))
            #expect(standIn.refusals.count == 1)
        }
    }

    @Test("429 and 503 are retried after Retry-After (seconds or a date); 500 without one")
    func retryAfter() async throws {
        try await withSender { sender, standIn in
            let message = PushFixture.message(to: PushFixture.apnsDestination)
            standIn.script(
                .init(status: .tooManyRequests, reason: "TooManyRequests", retryAfter: "7"),
                .init(
                    status: .serviceUnavailable, reason: "ServiceUnavailable",
                    retryAfter: "Fri, 15 Jan 2027 08:00:30 GMT"),
                .init(status: .internalServerError, reason: "InternalServerError", retryAfter: nil),
                .init(status: .tooManyRequests, reason: "TooManyRequests", retryAfter: "99999999999999"))
            #expect(await sender.send(message) == .retry(reason: "TooManyRequests", retryAfter: .seconds(7)))
            let dated = fixture.clock.date // 2027-01-15 08:00:00 UTC
            #expect(dated == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(await sender.send(message) == .retry(reason: "ServiceUnavailable", retryAfter: .seconds(30)))
            #expect(await sender.send(message) == .retry(reason: "InternalServerError", retryAfter: nil))
            #expect(await sender.send(message) == .retry(reason: "TooManyRequests", retryAfter: .seconds(86_400)))
            #expect(await sender.send(message) == .delivered(serviceID: message.id.uuidString.lowercased()))
        }
    }

    @Test("a payload over 4096 bytes, an empty alert and a long collapse id are refused before sending")
    func refusedBeforeSending() async throws {
        try await withSender { sender, standIn in
            let large = PushFixture.message(
                to: PushFixture.apnsDestination, data: ["note": String(repeating: "x", count: 4096)])
            guard case .refused(let reason) = await sender.send(large) else {
                Issue.record("a payload over 4096 bytes was not refused")
                return
            }
            #expect(reason.contains("4096"))
            #expect(throws: PushPayloadError.tooLarge(bytes: 4189, limit: 4096)) { try APNsPayload.encode(large) }
            let empty = PushFixture.message(to: PushFixture.apnsDestination, title: nil, body: nil)
            #expect(await sender.send(empty) == .refused(reason: PushPayloadError.emptyAlert.description))
            let reserved = PushFixture.message(to: PushFixture.apnsDestination, data: ["aps": "mine"])
            #expect(await sender.send(reserved) == .refused(reason: PushPayloadError.reservedKey("aps").description))
            var longCollapse = PushFixture.message(to: PushFixture.apnsDestination)
            longCollapse.collapseID = String(repeating: "c", count: 65)
            #expect(await sender.send(longCollapse).isRefused)
            #expect(standIn.accepted.isEmpty && standIn.refusals.isEmpty)
        }
    }

    @Test("200 pushes with 50 in flight on one connection: each answered, 200 distinct apns-ids seen")
    func concurrentSends() async throws {
        try await withSender { sender, standIn in
            let messages = (0..<200).map { _ in PushFixture.message(to: PushFixture.apnsDestination) }
            let outcomes = try await ConcurrentSends.send(
                messages, through: sender, inFlight: 50, within: .seconds(60))
            for (message, outcome) in zip(messages, outcomes) {
                #expect(outcome == .delivered(serviceID: message.id.uuidString.lowercased()))
            }
            #expect(outcomes.count == 200)
            let seen = Set(standIn.accepted.map(\.apnsID))
            #expect(seen.count == 200)
            #expect(seen == Set(messages.map { $0.id.uuidString.lowercased() }))
            #expect(standIn.refusals.isEmpty, "\(standIn.refusals.prefix(5))")
        }
    }

    @Test("an answer that stalls after its head is given up at the timeout and retried, never awaited for good")
    func stalledAnswer() async throws {
        let standIn = try await APNsStandIn.start(
            keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
            topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
        try await fixture.withClient { client in
            func sender(timeout: Duration) -> APNsSender {
                APNsSender(
                    credentials: APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                    client: client, endpoints: .init(production: "https://unused.invalid", sandbox: standIn.baseURL),
                    timeout: timeout, clock: fixture.clock.closure)
            }
            standIn.stall(1)
            let messages = [PushFixture.message(to: PushFixture.apnsDestination)]
            let outcomes = try await ConcurrentSends.send(
                messages, through: sender(timeout: .seconds(2)), inFlight: 1, within: .seconds(30))
            guard case .retry = outcomes.first else {
                Issue.record("a stalled answer was \(outcomes), not a retry")
                return
            }
            // The same client still delivers. With a timeout of its own: in a full test run the
            // shared event loops can be late by more than the 2 s that tell a stall.
            let next = await sender(timeout: .seconds(30)).send(messages[0])
            #expect(next.isDelivered, "the next send after a stalled answer was \(next)")
        }
        try await standIn.shutdown()
    }

    @Test("an unreachable APNs is retried later")
    func unreachable() async throws {
        try await fixture.withClient { client in
            let sender = APNsSender(
                credentials: APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, privateKey: key),
                client: client, endpoints: .init(production: "https://127.0.0.1:1", sandbox: "https://127.0.0.1:1"),
                timeout: .seconds(5), clock: fixture.clock.closure)
            guard case .retry = await sender.send(PushFixture.message(to: PushFixture.apnsDestination)) else {
                Issue.record("an unreachable APNs was not a retry")
                return
            }
        }
    }

    @Test("a .p8 key is read from its PEM text; anything else is a clear error")
    func credentials() throws {
        let pem = key.pemRepresentation
        let credentials = try APNsCredentials(keyID: PushFixture.keyID, teamID: PushFixture.teamID, p8: pem)
        #expect(credentials.privateKey.publicKey.rawRepresentation == key.publicKey.rawRepresentation)
        #expect(throws: PushCredentialsError.self) {
            try APNsCredentials(
                keyID: PushFixture.keyID, teamID: PushFixture.teamID,
                p8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
        }
    }
}

extension PushOutcome {
    var isDelivered: Bool {
        if case .delivered = self { true } else { false }
    }
    var isRefused: Bool {
        if case .refused = self { true } else { false }
    }
}
