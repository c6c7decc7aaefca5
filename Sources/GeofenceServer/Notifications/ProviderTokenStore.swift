import Foundation

/// APNs provider tokens kept in the server's store, so that every server on one store — a
/// second instance, or this one after a restart — sends the token in force instead of signing
/// its own. Apple refuses a token renewed within 20 minutes of the last
/// (`TooManyProviderTokenUpdates`); whether it counts per connection or per key across hosts
/// is not documented, and users of other APNs libraries report the refusal from several
/// instances of one key, so one token per key is the safe reading. Both stores conform
/// (`SQLiteStore+ProviderTokens`, `PostgresStore+ProviderTokens`).
public protocol ProviderTokenStore: Sendable {
    /// The token stored for the key, if any.
    func providerToken(teamID: String, keyID: String) async throws -> SignedProviderToken?
    /// Stores `candidate` unless the stored token is still in force (issued at or after
    /// `staleBefore`, and not `rejected` by APNs); returns the token in force afterwards, ours
    /// or the one another server stored first.
    func keepProviderToken(
        _ candidate: SignedProviderToken, teamID: String, keyID: String, staleBefore: Date, rejected: String?
    ) async throws -> SignedProviderToken
}

/// A signed provider token and its `iat`.
public struct SignedProviderToken: Sendable, Hashable {
    public var token: String
    public var issuedAt: Date

    public init(token: String, issuedAt: Date) {
        self.token = token
        self.issuedAt = issuedAt
    }
}
