import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import NIOSSL

@testable import GeofenceServer

/// What the push tests share: a certificate for 127.0.0.1 made for the test, a clock moved by
/// hand, keys, and HTTP clients that trust the certificate.
struct PushFixture {
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let topic = "org.example.geofence"
    static let projectID = "geofence-test"
    static let clientEmail = "push@geofence-test.iam.gserviceaccount.com"
    /// A well-formed APNs device token (32 bytes in hexadecimal).
    static let deviceToken = String(repeating: "ab12", count: 16)

    let certificate: (certificate: String, key: String)
    let clock = ManualClock()

    init() throws {
        certificate = try TLSTests.selfSignedCertificate()
    }

    /// An HTTP client that trusts the test certificate; `.automatic` negotiates HTTP/2.
    func client(httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(certificate.certificate)
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = httpVersion
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Runs `body` with a client, and shuts the client down whether `body` throws or not.
    func withClient<T>(
        httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        let client = client(httpVersion: httpVersion)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    static func message(
        to destination: PushDestination, kind: PushMessage.Kind = .alert, title: String? = "Low bridge ahead",
        body: String? = "3.2 m clearance at Waibaidu", data: [String: String] = ["region": "bund"]
    ) -> PushMessage {
        PushMessage(
            destination: destination, id: UUID(), collapseID: "region-bund", kind: kind, title: title, body: body,
            data: data, expiresAt: nil)
    }

    static var apnsDestination: PushDestination {
        PushDestination(service: .apns(topic: topic, environment: .sandbox), token: deviceToken)
    }

    static func fcmDestination(_ token: String = "fcm-token:APA91b_phone-1") -> PushDestination {
        PushDestination(service: .fcm(projectID: projectID), token: token)
    }

    /// A service-account key file as Google's console writes it, pointing at `tokenURI`.
    static func serviceAccountJSON(key: _RSA.Signing.PrivateKey, tokenURI: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: [
            "type": "service_account", "project_id": projectID, "private_key_id": "k1",
            "private_key": key.pkcs8PEMRepresentation, "client_email": clientEmail, "token_uri": tokenURI,
        ])
    }
}

/// The claims of an APNs provider token, for tests that make their own.
struct ProviderTokenClaims: Encodable {
    var iss: String
    var iat: Int64
}
