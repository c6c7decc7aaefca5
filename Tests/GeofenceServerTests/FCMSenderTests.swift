import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import Testing

@testable import GeofenceServer

/// `FCMSender` against the FCM stand-in over HTTP/2 and TLS: the OAuth exchange and its cache,
/// the message as FCM's reference describes it, and what it makes of FCM's answers.
@Suite("FCM sender: OAuth-authenticated HTTP v1 messages and their outcomes")
struct FCMSenderTests {
    let fixture: PushFixture
    let key: _RSA.Signing.PrivateKey

    init() throws {
        fixture = try PushFixture()
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    func withSender(_ body: (FCMSender, FCMStandIn) async throws -> Void) async throws {
        let standIn = try await FCMStandIn.start(
            projectID: PushFixture.projectID, clientEmail: PushFixture.clientEmail, publicKey: key.publicKey,
            certificate: fixture.certificate, clock: fixture.clock.closure)
        standIn.register("fcm-token:APA91b_phone-1")
        do {
            let account = try FCMServiceAccount(
                json: PushFixture.serviceAccountJSON(key: key, tokenURI: standIn.tokenURI))
            try await fixture.withClient { client in
                let sender = FCMSender(
                    serviceAccount: account, client: client, endpoint: standIn.baseURL, clock: fixture.clock.closure)
                try await body(sender, standIn)
            }
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    @Test("an alert arrives as FCM's reference describes it: token, notification, data, android, apns")
    func deliversAlert() async throws {
        try await withSender { sender, standIn in
            var message = PushFixture.message(to: PushFixture.fcmDestination())
            message.expiresAt = fixture.clock.date.addingTimeInterval(1800)
            #expect(await sender.send(message) == .delivered(serviceID: "projects/\(PushFixture.projectID)/messages/1"))
            let sent = try #require(standIn.accepted.first).message
            #expect(sent["token"] as? String == "fcm-token:APA91b_phone-1")
            #expect(
                sent["notification"] as? [String: String] == [
                    "title": "Low bridge ahead", "body": "3.2 m clearance at Waibaidu",
                ])
            #expect(sent["data"] as? [String: String] == ["region": "bund"])
            let android = sent["android"] as? [String: Any]
            #expect(android?["collapse_key"] as? String == "region-bund" && android?["ttl"] as? String == "1800s")
            let apnsHeaders = (sent["apns"] as? [String: Any])?["headers"] as? [String: String]
            #expect(apnsHeaders?["apns-collapse-id"] == "region-bund" && apnsHeaders?["apns-push-type"] == "alert")
        }
    }

    @Test("the access token is exchanged once, re-used until a minute before it expires, then renewed")
    func accessTokenCache() async throws {
        try await withSender { sender, standIn in
            let message = PushFixture.message(to: PushFixture.fcmDestination())
            async let first = sender.send(message)
            async let second = sender.send(message)
            #expect(await [first, second].allSatisfy(\.isDelivered))
            fixture.clock.advance(3599 - 61)
            #expect(await sender.send(message).isDelivered)
            #expect(standIn.tokenExchanges == 1)
            fixture.clock.advance(2)
            #expect(await sender.send(message).isDelivered)
            #expect(standIn.tokenExchanges == 2)
            let tokens = standIn.accepted.map(\.accessToken)
            #expect(Set(tokens.prefix(3)).count == 1 && tokens[3] != tokens[0])
        }
    }

    @Test("200 messages with 50 in flight on one connection: each answered, 200 distinct messages seen")
    func concurrentSends() async throws {
        try await withSender { sender, standIn in
            let messages = (0..<200).map { i in
                PushFixture.message(to: PushFixture.fcmDestination(), data: ["n": String(i)])
            }
            let outcomes = try await ConcurrentSends.send(
                messages, through: sender, inFlight: 50, within: .seconds(60))
            #expect(outcomes.count == 200)
            let undelivered = outcomes.filter { !$0.isDelivered }
            #expect(undelivered.isEmpty, "\(undelivered.prefix(3))")
            let names = Set(outcomes.compactMap { if case .delivered(let name) = $0 { name } else { nil } })
            #expect(names.count == 200)
            let seen = standIn.accepted.compactMap { ($0.message["data"] as? [String: String])?["n"] }
            #expect(Set(seen) == Set((0..<200).map(String.init)) && seen.count == 200)
            #expect(standIn.tokenExchanges == 1)
        }
    }

    @Test("UNREGISTERED makes the token invalid; 429 and 503 are retried after Retry-After")
    func answers() async throws {
        try await withSender { sender, standIn in
            #expect(
                await sender.send(PushFixture.message(to: PushFixture.fcmDestination("uninstalled"))).isTokenInvalid)
            standIn.script(
                .init(
                    status: .tooManyRequests, rpcStatus: "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED",
                    retryAfter: "12"),
                .init(status: .serviceUnavailable, rpcStatus: "UNAVAILABLE", errorCode: "UNAVAILABLE", retryAfter: "3"),
                .init(
                    status: .badRequest, rpcStatus: "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", retryAfter: nil))
            let message = PushFixture.message(to: PushFixture.fcmDestination())
            #expect(await sender.send(message) == .retry(reason: "QUOTA_EXCEEDED: Scripted.", retryAfter: .seconds(12)))
            #expect(await sender.send(message) == .retry(reason: "UNAVAILABLE: Scripted.", retryAfter: .seconds(3)))
            #expect(await sender.send(message) == .refused(reason: "INVALID_ARGUMENT: Scripted."))
            #expect(await sender.send(message).isDelivered)
        }
    }

    @Test("a payload over 4096 bytes is refused before anything is sent")
    func tooLarge() async throws {
        try await withSender { sender, standIn in
            let large = PushFixture.message(
                to: PushFixture.fcmDestination(), data: ["note": String(repeating: "x", count: 4096)])
            #expect(await sender.send(large).isRefused)
            #expect(standIn.tokenExchanges == 0 && standIn.accepted.isEmpty && standIn.refusals.isEmpty)
        }
    }

    @Test("a service-account key without a field or with a key that is not RSA is a clear error")
    func serviceAccount() throws {
        #expect(throws: PushCredentialsError.invalidServiceAccount("the service-account key has no client_email")) {
            try FCMServiceAccount(
                json: Data(#"{"token_uri":"https://oauth2.googleapis.com/token","private_key":"x"}"#.utf8))
        }
        #expect(throws: PushCredentialsError.self) {
            try FCMServiceAccount(
                clientEmail: "a@b", tokenURI: "https://oauth2.googleapis.com/token",
                privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation)
        }
        #expect(throws: PushCredentialsError.self) { try FCMServiceAccount(json: Data("[]".utf8)) }
    }
}

extension PushOutcome {
    var isTokenInvalid: Bool {
        if case .tokenInvalid = self { true } else { false }
    }
}
