import Crypto
import Foundation

/// The provider token (an ES256 JWT) that authenticates every request to APNs, signed once and
/// re-used: Apple refuses a token older than an hour (`ExpiredProviderToken`) and one renewed
/// more often than every 20 minutes (`TooManyProviderTokenUpdates`), so a token is re-signed
/// when it is `lifetime` old (40 minutes: both limits with 20 minutes to spare), or at once
/// when APNs calls it expired.
actor APNsProviderToken {
    /// How long one signed token is used.
    static let lifetime: TimeInterval = 40 * 60

    private let credentials: APNsCredentials
    private let clock: @Sendable () -> Date
    private var current: (token: String, issuedAt: Date)?

    init(credentials: APNsCredentials, clock: @escaping @Sendable () -> Date) {
        self.credentials = credentials
        self.clock = clock
    }

    /// The token to send now, signing a new one when the cached one is too old or dated in the
    /// future (a clock that stepped back).
    func token() throws -> String {
        let now = clock()
        if let current, now >= current.issuedAt, now.timeIntervalSince(current.issuedAt) < Self.lifetime {
            return current.token
        }
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try JWT.signES256(
            header: Header(alg: "ES256", kid: credentials.keyID),
            claims: Claims(iss: credentials.teamID, iat: Int64(issuedAt.timeIntervalSince1970)),
            key: credentials.privateKey)
        current = (token, issuedAt)
        return token
    }

    /// Forgets `token` after APNs answered `ExpiredProviderToken` for it, so the next request
    /// signs a new one (a token signed since is kept).
    func discard(_ token: String) {
        if current?.token == token { current = nil }
    }

    private struct Header: Encodable {
        var alg: String
        var kid: String
    }

    private struct Claims: Encodable {
        var iss: String
        var iat: Int64
    }
}
