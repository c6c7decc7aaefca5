import AsyncHTTPClient
import Foundation
import NIOCore

/// The OAuth 2 access token FCM requests carry, got by the JWT-bearer grant (RFC 7523): an
/// RS256 assertion signed with the service account's key, exchanged at its `token_uri`, and
/// used until a minute before it expires. Concurrent senders share one exchange.
actor FCMAccessToken {
    /// Scope that lets the token send messages and nothing else.
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// The token is renewed this long before Google's `expires_in` runs out, so that no request
    /// leaves with a token that expires on the way.
    static let renewalMargin: TimeInterval = 60
    /// Google takes assertions valid for at most an hour.
    static let assertionLifetime: TimeInterval = 3600

    private let account: FCMServiceAccount
    private let client: HTTPClient
    private let timeout: Duration
    private let clock: @Sendable () -> Date
    private var current: (token: String, expiresAt: Date)?
    private var exchange: Task<(token: String, expiresAt: Date), any Error>?

    init(account: FCMServiceAccount, client: HTTPClient, timeout: Duration, clock: @escaping @Sendable () -> Date) {
        self.account = account
        self.client = client
        self.timeout = timeout
        self.clock = clock
    }

    func token() async throws -> String {
        if let current, clock() < current.expiresAt.addingTimeInterval(-Self.renewalMargin) {
            return current.token
        }
        if let exchange { return try await exchange.value.token }
        // On the background thread, like the sends that wait for it (``BackgroundExecutor``).
        let task = Task(executorPreference: BackgroundExecutor.shared) { try await self.exchangeAssertion() }
        exchange = task
        defer { exchange = nil }
        let fresh = try await task.value
        current = fresh
        return fresh.token
    }

    /// Forgets `token` after FCM answered 401 for it.
    func discard(_ token: String) {
        if current?.token == token { current = nil }
    }

    private func exchangeAssertion() async throws -> (token: String, expiresAt: Date) {
        let now = clock()
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let assertion = try JWT.signRS256(
            header: Header(alg: "RS256", typ: "JWT", kid: account.privateKeyID),
            claims: Claims(
                iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: issuedAt,
                exp: issuedAt + Int64(Self.assertionLifetime)),
            key: account.privateKey)
        // The grant type's URN percent-encoded; the assertion is base64url and dots, safe as is.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = try HTTPClient.Request(
            url: account.tokenURI, method: .POST, headers: ["content-type": "application/x-www-form-urlencoded"],
            body: .string(form))
        let exchange = try await PushExchange.run(request, on: client, timeout: timeout, maximumBodyBytes: 64 * 1024)
        let json = (try? JSONSerialization.jsonObject(with: Data(exchange.body.readableBytesView))) as? [String: Any]
        guard exchange.status == 200, let token = json?["access_token"] as? String, !token.isEmpty,
            let expiresIn = (json?["expires_in"] as? NSNumber)?.doubleValue, expiresIn.isFinite, expiresIn > 0
        else {
            let detail = (json?["error_description"] ?? json?["error"]) as? String ?? "HTTP \(exchange.status)"
            throw FCMTokenExchangeError(detail: detail)
        }
        return (token, now.addingTimeInterval(min(expiresIn, Self.assertionLifetime)))
    }

    private struct Header: Encodable {
        var alg: String
        var typ: String
        var kid: String?
    }

    private struct Claims: Encodable {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
    }
}

/// Google's token endpoint did not give an access token.
struct FCMTokenExchangeError: Error, CustomStringConvertible {
    var detail: String
    var description: String { "the OAuth token exchange failed: \(detail)" }
}
