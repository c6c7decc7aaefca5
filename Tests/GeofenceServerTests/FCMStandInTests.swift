import AsyncHTTPClient
import CryptoExtras
import Foundation
import NIOCore
import Testing

@testable import GeofenceServer

/// The FCM stand-in and its token endpoint refuse what Google documents as refused; requests
/// are made by hand here so that each can break one rule.
@Suite("FCM stand-in: refuses what FCM and Google's token endpoint refuse")
struct FCMStandInTests {
    let fixture: PushFixture
    let key: _RSA.Signing.PrivateKey

    init() throws {
        fixture = try PushFixture()
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    struct Assertion: Encodable {
        var iss = PushFixture.clientEmail
        var scope = FCMAccessToken.scope
        var aud: String
        var iat: Int64
        var exp: Int64
    }

    func withStandIn(_ body: (FCMStandIn, HTTPClient) async throws -> Void) async throws {
        let standIn = try await FCMStandIn.start(
            projectID: PushFixture.projectID, clientEmail: PushFixture.clientEmail, publicKey: key.publicKey,
            certificate: fixture.certificate, clock: fixture.clock.closure)
        do {
            try await fixture.withClient { try await body(standIn, $0) }
        } catch {
            try? await standIn.shutdown()
            throw error
        }
        try await standIn.shutdown()
    }

    func post(
        _ url: String, _ body: String, contentType: String, bearer: String? = nil, client: HTTPClient
    ) async throws
        -> (status: Int, json: [String: Any])
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        if let bearer { request.headers.add(name: "authorization", value: "Bearer \(bearer)") }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: .seconds(10))
        let data = Data(try await response.body.collect(upTo: 1 << 16).readableBytesView)
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    func exchange(
        _ assertion: Assertion, key: _RSA.Signing.PrivateKey? = nil, standIn: FCMStandIn, client: HTTPClient
    )
        async throws -> (status: Int, json: [String: Any])
    {
        let jwt = try JWT.signRS256(header: ["alg": "RS256", "typ": "JWT"], claims: assertion, key: key ?? self.key)
        return try await post(
            standIn.tokenURI, "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)",
            contentType: "application/x-www-form-urlencoded", client: client)
    }

    func assertion(_ standIn: FCMStandIn, issuedAt: Date? = nil) -> Assertion {
        let iat = Int64((issuedAt ?? fixture.clock.date).timeIntervalSince1970)
        return Assertion(aud: standIn.tokenURI, iat: iat, exp: iat + 3600)
    }

    func errorCode(_ json: [String: Any]) -> String? {
        let details = (json["error"] as? [String: Any])?["details"] as? [[String: Any]]
        return details?.first?["errorCode"] as? String
    }

    @Test("the token endpoint refuses another key's signature, another audience, a long-lived or stale assertion")
    func tokenEndpoint() async throws {
        try await withStandIn { standIn, client in
            let forged = try await exchange(
                assertion(standIn), key: try _RSA.Signing.PrivateKey(keySize: .bits2048), standIn: standIn,
                client: client)
            #expect(forged.status == 400 && forged.json["error"] as? String == "invalid_grant")
            var audience = assertion(standIn)
            audience.aud = "https://oauth2.googleapis.com/token"
            #expect(try await exchange(audience, standIn: standIn, client: client).status == 400)
            var longLived = assertion(standIn)
            longLived.exp = longLived.iat + 7200
            #expect(
                try await exchange(longLived, standIn: standIn, client: client).json["error"] as? String
                    == "invalid_grant")
            let stale = assertion(standIn, issuedAt: fixture.clock.date.addingTimeInterval(-3601))
            #expect(try await exchange(stale, standIn: standIn, client: client).status == 400)
            var scope = assertion(standIn)
            scope.scope = "https://www.googleapis.com/auth/cloud-platform.read-only"
            #expect(
                try await exchange(scope, standIn: standIn, client: client).json["error"] as? String == "invalid_scope")
            let wrongGrant = try await post(
                standIn.tokenURI, "grant_type=client_credentials", contentType: "application/x-www-form-urlencoded",
                client: client)
            #expect(wrongGrant.json["error"] as? String == "unsupported_grant_type")
            #expect(standIn.tokenExchanges == 0)
            let good = try await exchange(assertion(standIn), standIn: standIn, client: client)
            #expect(good.status == 200 && good.json["expires_in"] as? Int == 3599)
        }
    }

    @Test("messages:send refuses a missing, unknown or expired OAuth token with 401 UNAUTHENTICATED")
    func accessTokens() async throws {
        try await withStandIn { standIn, client in
            standIn.register("phone-1")
            let url = standIn.baseURL + "/v1/projects/\(PushFixture.projectID)/messages:send"
            let body = #"{"message":{"token":"phone-1","data":{"a":"b"}}}"#
            #expect(try await post(url, body, contentType: "application/json", client: client).status == 401)
            #expect(
                try await post(url, body, contentType: "application/json", bearer: "ya29.made-up", client: client)
                    .status == 401)
            let token = try #require(
                try await exchange(assertion(standIn), standIn: standIn, client: client).json["access_token"] as? String
            )
            #expect(
                try await post(url, body, contentType: "application/json", bearer: token, client: client).status == 200)
            fixture.clock.advance(3600)
            let expired = try await post(url, body, contentType: "application/json", bearer: token, client: client)
            #expect(
                expired.status == 401
                    && (expired.json["error"] as? [String: Any])?["status"] as? String == "UNAUTHENTICATED")
            #expect(standIn.accepted.count == 1)
        }
    }

    @Test("messages:send refuses malformed messages with INVALID_ARGUMENT and unknown tokens with UNREGISTERED")
    func messages() async throws {
        try await withStandIn { standIn, client in
            standIn.register("phone-1")
            let token = try #require(
                try await exchange(assertion(standIn), standIn: standIn, client: client).json["access_token"] as? String
            )
            let url = standIn.baseURL + "/v1/projects/\(PushFixture.projectID)/messages:send"
            let malformed = [
                #"{"message":{"token":"phone-1","topic":"news"}}"#,
                #"{"message":{"data":{"a":"b"}}}"#,
                #"{"message":{"token":"phone-1","colour":"red"}}"#,
                #"{"message":{"token":"phone-1","data":{"count":3}}}"#,
                #"{"message":{"token":"phone-1","data":{"from":"me"}}}"#,
                #"{"message":{"token":"phone-1","android":{"ttl":"3600"}}}"#,
                #"{"message":{"token":"phone 1"}}"#,
                #"{"msg":{"token":"phone-1"}}"#,
                "not json",
                #"{"message":{"token":"phone-1","data":{"pad":""# + String(repeating: "p", count: 4100) + #""}}}"#,
            ]
            for body in malformed {
                let answer = try await post(url, body, contentType: "application/json", bearer: token, client: client)
                #expect(answer.status == 400 && errorCode(answer.json) == "INVALID_ARGUMENT", "\(body.prefix(80))")
            }
            let unknown = try await post(
                url, #"{"message":{"token":"phone-2"}}"#, contentType: "application/json", bearer: token, client: client
            )
            #expect(unknown.status == 404 && errorCode(unknown.json) == "UNREGISTERED")
            let otherProject = try await post(
                standIn.baseURL + "/v1/projects/someone-else/messages:send", #"{"message":{"token":"phone-1"}}"#,
                contentType: "application/json", bearer: token, client: client)
            #expect(otherProject.status == 403)
            #expect(standIn.accepted.isEmpty)
        }
    }
}
