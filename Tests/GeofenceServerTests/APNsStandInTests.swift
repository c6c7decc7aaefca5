import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import PushStandIns
import Testing

@testable import GeofenceServer

/// The APNs stand-in refuses what Apple documents as refused, with Apple's status and reason;
/// requests are made by hand here so that each can break one rule.
@Suite("APNs stand-in: refuses what APNs refuses")
struct APNsStandInTests {
    let fixture: PushFixture
    let key = P256.Signing.PrivateKey()

    init() throws { fixture = try PushFixture() }

    /// A request that passes every rule, to be broken one way by each test.
    struct Request {
        var path = "/3/device/" + PushFixture.deviceToken
        var headers: [String: String] = [
            "apns-topic": PushFixture.topic, "apns-push-type": "alert", "apns-priority": "10",
            "apns-id": UUID().uuidString.lowercased(),
        ]
        var body = #"{"aps":{"alert":{"title":"Hello","body":"Shop ahead"}}}"#
    }

    func providerToken(key: P256.Signing.PrivateKey? = nil, issuedAt: Date? = nil) throws -> String {
        try JWT.signES256(
            header: ["alg": "ES256", "kid": PushFixture.keyID],
            claims: ProviderTokenClaims(
                iss: PushFixture.teamID, iat: Int64((issuedAt ?? fixture.clock.date).timeIntervalSince1970)),
            key: key ?? self.key)
    }

    /// Sends `request` with `authorization` and answers (status, reason, apns-id header).
    func send(
        _ request: Request, authorization: String?, to standIn: APNsStandIn, client: HTTPClient
    ) async throws
        -> (status: Int, reason: String?, apnsID: String?)
    {
        var http = HTTPClientRequest(url: standIn.baseURL + request.path)
        http.method = .POST
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        if let authorization { http.headers.add(name: "authorization", value: authorization) }
        http.body = .bytes(ByteBuffer(string: request.body))
        let response = try await client.execute(http, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 16)
        let json = (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        return (Int(response.status.code), json?["reason"] as? String, response.headers.first(name: "apns-id"))
    }

    func withStandIn(_ body: (APNsStandIn, HTTPClient) async throws -> Void) async throws {
        let standIn = try await APNsStandIn.start(
            keyID: PushFixture.keyID, teamID: PushFixture.teamID, publicKey: key.publicKey,
            topics: [PushFixture.topic], certificate: fixture.certificate, clock: fixture.clock.closure)
        do {
            try await fixture.withClient { try await body(standIn, $0) }
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    @Test("a well-formed alert is accepted: 200 with its apns-id, recorded")
    func accepts() async throws {
        try await withStandIn { standIn, client in
            let request = Request()
            let answer = try await send(
                request, authorization: "bearer \(try providerToken())", to: standIn, client: client)
            #expect(answer.status == 200)
            #expect(answer.apnsID == request.headers["apns-id"])
            #expect(standIn.accepted.count == 1)
            #expect(standIn.accepted.first?.aps["alert"] != nil)
        }
    }

    @Test("HTTP/1.1 is refused: the connection closes before any request is read")
    func http1() async throws {
        try await withStandIn { standIn, _ in
            _ = try await fixture.withClient(httpVersion: .http1Only) { client in
                await #expect(throws: (any Error).self) {
                    _ = try await send(
                        Request(), authorization: "bearer \(try providerToken())", to: standIn, client: client)
                }
            }
            #expect(standIn.refusedHTTP1Connections >= 1)
            #expect(standIn.accepted.isEmpty)
        }
    }

    @Test("provider tokens: missing, signed by another key, for another key id, older than an hour")
    func providerTokens() async throws {
        try await withStandIn { standIn, client in
            #expect(
                try await send(Request(), authorization: nil, to: standIn, client: client).reason
                    == "MissingProviderToken")
            let otherKey = try providerToken(key: P256.Signing.PrivateKey())
            let forged = try await send(Request(), authorization: "bearer \(otherKey)", to: standIn, client: client)
            #expect(forged.status == 403 && forged.reason == "InvalidProviderToken")
            let wrongKeyID = try JWT.signES256(
                header: ["alg": "ES256", "kid": "ZZZ999ZZZZ"],
                claims: ProviderTokenClaims(
                    iss: PushFixture.teamID, iat: Int64(fixture.clock.date.timeIntervalSince1970)),
                key: key)
            #expect(
                try await send(Request(), authorization: "bearer \(wrongKeyID)", to: standIn, client: client).reason
                    == "InvalidProviderToken")
            #expect(
                try await send(Request(), authorization: "bearer not.a.jwt", to: standIn, client: client).reason
                    == "InvalidProviderToken")
            let old = try providerToken(issuedAt: fixture.clock.date.addingTimeInterval(-3601))
            let expired = try await send(Request(), authorization: "bearer \(old)", to: standIn, client: client)
            #expect(expired.status == 403 && expired.reason == "ExpiredProviderToken")
            #expect(standIn.accepted.isEmpty)
        }
    }

    @Test("a provider token accepted once is refused once it is older than an hour; a changed signature is refused")
    func acceptedTokenAges() async throws {
        try await withStandIn { standIn, client in
            let token = try providerToken()
            #expect(
                try await send(Request(), authorization: "bearer \(token)", to: standIn, client: client).status == 200)
            // The same claims with a character inside the signature changed (the last one may
            // only carry padding bits).
            var characters = Array(token)
            let i = characters.count - 10
            characters[i] = characters[i] == "A" ? "B" : "A"
            let altered = try await send(
                Request(), authorization: "bearer \(String(characters))", to: standIn, client: client)
            #expect(altered.status == 403 && altered.reason == "InvalidProviderToken")
            fixture.clock.advance(3601)
            let aged = try await send(Request(), authorization: "bearer \(token)", to: standIn, client: client)
            #expect(aged.status == 403 && aged.reason == "ExpiredProviderToken")
            #expect(standIn.accepted.count == 1)
        }
    }

    @Test("a new provider token within 20 minutes of the last is TooManyProviderTokenUpdates")
    func tokenUpdateRate() async throws {
        try await withStandIn { standIn, client in
            let first = try providerToken()
            #expect(
                try await send(Request(), authorization: "bearer \(first)", to: standIn, client: client).status == 200)
            fixture.clock.advance(19 * 60)
            let early = try await send(
                Request(), authorization: "bearer \(try providerToken())", to: standIn, client: client)
            #expect(early.status == 429 && early.reason == "TooManyProviderTokenUpdates")
            // The first token is still good, and a new one 20 minutes on is taken.
            #expect(
                try await send(Request(), authorization: "bearer \(first)", to: standIn, client: client).status == 200)
            fixture.clock.advance(60)
            #expect(
                try await send(Request(), authorization: "bearer \(try providerToken())", to: standIn, client: client)
                    .status == 200)
        }
    }

    @Test("headers: a missing or wrong apns-topic, no apns-push-type, a background push at priority 10, bad ids")
    func headers() async throws {
        try await withStandIn { standIn, client in
            let bearer = "bearer \(try providerToken())"
            func answer(_ change: (inout Request) -> Void) async throws -> (Int, String?) {
                var request = Request()
                change(&request)
                let answer = try await send(request, authorization: bearer, to: standIn, client: client)
                return (answer.status, answer.reason)
            }
            #expect(try await answer { $0.headers["apns-topic"] = nil } == (400, "MissingTopic"))
            #expect(try await answer { $0.headers["apns-topic"] = "com.someone.else" } == (400, "TopicDisallowed"))
            #expect(try await answer { $0.headers["apns-push-type"] = nil } == (400, "InvalidPushType"))
            #expect(try await answer { $0.headers["apns-push-type"] = "shout" } == (400, "InvalidPushType"))
            #expect(
                try await answer {
                    $0.headers["apns-push-type"] = "background"
                    $0.body = #"{"aps":{"content-available":1}}"#
                } == (400, "BadPriority"))
            #expect(try await answer { $0.headers["apns-priority"] = "7" } == (400, "BadPriority"))
            #expect(try await answer { $0.headers["apns-id"] = "event-42" } == (400, "BadMessageId"))
            #expect(
                try await answer { $0.headers["apns-collapse-id"] = String(repeating: "c", count: 65) }
                    == (400, "BadCollapseId"))
            #expect(try await answer { $0.headers["apns-expiration"] = "tomorrow" } == (400, "BadExpirationDate"))
            #expect(standIn.accepted.isEmpty)
        }
    }

    @Test("device tokens and payloads: malformed tokens, an empty payload, one over 4096 bytes")
    func tokensAndPayloads() async throws {
        try await withStandIn { standIn, client in
            let bearer = "bearer \(try providerToken())"
            for token in ["xyz", String(repeating: "g", count: 64), String(repeating: "ab", count: 31)] {
                var request = Request()
                request.path = "/3/device/" + token
                #expect(
                    try await send(request, authorization: bearer, to: standIn, client: client).reason
                        == "BadDeviceToken")
            }
            var empty = Request()
            empty.body = ""
            #expect(try await send(empty, authorization: bearer, to: standIn, client: client).reason == "PayloadEmpty")
            var large = Request()
            large.body = #"{"aps":{"alert":"x"},"pad":""# + String(repeating: "p", count: 4080) + #""}"#
            let tooLarge = try await send(large, authorization: bearer, to: standIn, client: client)
            #expect(tooLarge.status == 413 && tooLarge.reason == "PayloadTooLarge")
            var path = Request()
            path.path = "/3/devices/" + PushFixture.deviceToken
            #expect(try await send(path, authorization: bearer, to: standIn, client: client).reason == "BadPath")
            #expect(standIn.accepted.isEmpty)
        }
    }

    @Test("an unregistered token is answered 410 with the time APNs last knew it valid")
    func unregistered() async throws {
        try await withStandIn { standIn, client in
            let since = Date(timeIntervalSince1970: 1_799_990_000.25)
            standIn.unregister(PushFixture.deviceToken, since: since)
            var http = HTTPClientRequest(url: standIn.baseURL + Request().path)
            http.method = .POST
            for (name, value) in Request().headers { http.headers.add(name: name, value: value) }
            http.headers.add(name: "authorization", value: "bearer \(try providerToken())")
            http.body = .bytes(ByteBuffer(string: Request().body))
            let response = try await client.execute(http, timeout: .seconds(10))
            let json = try JSONSerialization.jsonObject(
                with: Data(try await response.body.collect(upTo: 4096).readableBytesView))
            #expect(response.status.code == 410)
            let object = json as? [String: Any]
            #expect(object?["reason"] as? String == "Unregistered")
            #expect((object?["timestamp"] as? NSNumber)?.int64Value == 1_799_990_000_250)
        }
    }
}
