import Crypto
import Foundation

/// The provider token (an ES256 JWT) that authenticates every request to APNs, signed once and
/// re-used: Apple refuses a token older than an hour (`ExpiredProviderToken`) and one renewed
/// more often than every 20 minutes (`TooManyProviderTokenUpdates`), so a token is re-signed
/// when it is `lifetime` old (40 minutes: both limits with 20 minutes to spare), or at once
/// when APNs calls it expired. With a ``ProviderTokenStore``, the servers on one store share
/// one token: each takes the stored one while it is in force and stores the one it signs.
actor APNsProviderToken {
    /// How long one signed token is used.
    static let lifetime: TimeInterval = 40 * 60
    /// How far ahead of this server's clock another server's token may be dated (their clocks
    /// differ a little).
    static let clockSkew: TimeInterval = 60

    private let credentials: APNsCredentials
    private let clock: @Sendable () -> Date
    private let shared: (any ProviderTokenStore)?
    private var current: SignedProviderToken?
    /// The last token APNs called expired: not taken from the store again.
    private var rejected: String?

    init(credentials: APNsCredentials, clock: @escaping @Sendable () -> Date, shared: (any ProviderTokenStore)? = nil) {
        self.credentials = credentials
        self.clock = clock
        self.shared = shared
    }

    /// The token to send now: the one in use while it is in force, else the store's, else a
    /// new one (also when the one in use is dated in the future: a clock that stepped back). A
    /// store that cannot be reached leaves this server signing its own.
    func token() async throws -> String {
        let now = clock()
        if let current, inForce(current, now: now, skew: 0) { return current.token }
        if let shared,
            let stored = try? await shared.providerToken(teamID: credentials.teamID, keyID: credentials.keyID),
            stored.token != rejected, inForce(stored, now: now, skew: Self.clockSkew)
        {
            current = stored
            return stored.token
        }
        let signed = try sign(at: now)
        var kept = signed
        if let shared,
            let stored = try? await shared.keepProviderToken(
                signed, teamID: credentials.teamID, keyID: credentials.keyID,
                staleBefore: now.addingTimeInterval(-Self.lifetime), rejected: rejected),
            stored.token != rejected
        {
            kept = stored
        }
        current = kept
        return kept.token
    }

    /// Forgets `token` after APNs answered `ExpiredProviderToken` for it, so the next request
    /// signs a new one (a token signed since is kept).
    func discard(_ token: String) {
        rejected = token
        if current?.token == token { current = nil }
    }

    private func inForce(_ t: SignedProviderToken, now: Date, skew: TimeInterval) -> Bool {
        now.addingTimeInterval(skew) >= t.issuedAt && now.timeIntervalSince(t.issuedAt) < Self.lifetime
    }

    private func sign(at now: Date) throws -> SignedProviderToken {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let token = try JWT.signES256(
            header: Header(alg: "ES256", kid: credentials.keyID),
            claims: Claims(iss: credentials.teamID, iat: Int64(issuedAt.timeIntervalSince1970)),
            key: credentials.privateKey)
        return SignedProviderToken(token: token, issuedAt: issuedAt)
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
