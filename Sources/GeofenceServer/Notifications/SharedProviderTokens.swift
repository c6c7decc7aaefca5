import Foundation

/// APNs provider tokens kept in the server's store, so that every server on one store — a
/// second instance, or this one after a restart — sends the token in force instead of signing
/// its own. Apple refuses a token renewed within 20 minutes of the last
/// (`TooManyProviderTokenUpdates`); whether it counts per connection or per key across hosts
/// is not documented, and users of other APNs libraries report the refusal from several
/// instances of one key, so one token per key is the safe reading. Both stores conform.
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

extension SQLiteStore: ProviderTokenStore {
    /// Idempotent: it may run again after an earlier migration is re-run.
    static let providerTokenMigration = [
        "CREATE TABLE IF NOT EXISTS apns_provider_tokens (team_id TEXT NOT NULL, key_id TEXT NOT NULL, token TEXT NOT NULL, issued_at REAL NOT NULL, PRIMARY KEY (team_id, key_id)) WITHOUT ROWID"
    ]

    public func providerToken(teamID: String, keyID: String) async throws -> SignedProviderToken? {
        try await read { s in try Self.storedProviderToken(s, teamID: teamID, keyID: keyID) }
    }

    public func keepProviderToken(
        _ candidate: SignedProviderToken, teamID: String, keyID: String, staleBefore: Date, rejected: String?
    ) async throws -> SignedProviderToken {
        try await transaction { s in
            try s.query(
                """
                INSERT INTO apns_provider_tokens (team_id, key_id, token, issued_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (team_id, key_id) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
                WHERE apns_provider_tokens.issued_at < ? OR apns_provider_tokens.token = ?
                """,
                [
                    .text(teamID), .text(keyID), .text(candidate.token),
                    .float(candidate.issuedAt.timeIntervalSince1970),
                    .float(staleBefore.timeIntervalSince1970), rejected.map { .text($0) } ?? .null,
                ])
            return try Self.storedProviderToken(s, teamID: teamID, keyID: keyID) ?? candidate
        }
    }

    private static func storedProviderToken(
        _ s: SQLiteSession, teamID: String, keyID: String
    ) throws -> SignedProviderToken? {
        try s.query(
            "SELECT token, issued_at FROM apns_provider_tokens WHERE team_id = ? AND key_id = ?",
            [.text(teamID), .text(keyID)]
        ).first.flatMap { row in
            guard let token = row.column("token")?.string, let at = row.column("issued_at")?.double else { return nil }
            return SignedProviderToken(token: token, issuedAt: Date(timeIntervalSince1970: at))
        }
    }
}

extension PostgresStore: ProviderTokenStore {
    /// Idempotent: it may run again after an earlier migration is re-run.
    static let providerTokenMigration = [
        "CREATE TABLE IF NOT EXISTS apns_provider_tokens (team_id TEXT NOT NULL, key_id TEXT NOT NULL, token TEXT NOT NULL, issued_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (team_id, key_id))"
    ]

    public func providerToken(teamID: String, keyID: String) async throws -> SignedProviderToken? {
        let rows = try await query(
            "SELECT token, issued_at FROM apns_provider_tokens WHERE team_id = \(teamID) AND key_id = \(keyID)")
        return try rows.first.map { row in
            let (token, at) = try row.decode((String, Double).self)
            return SignedProviderToken(token: token, issuedAt: Date(timeIntervalSince1970: at))
        }
    }

    public func keepProviderToken(
        _ candidate: SignedProviderToken, teamID: String, keyID: String, staleBefore: Date, rejected: String?
    ) async throws -> SignedProviderToken {
        let token = candidate.token
        let issuedAt = candidate.issuedAt.timeIntervalSince1970
        let stale = staleBefore.timeIntervalSince1970
        // One statement: the row is locked while the condition is decided, so two servers
        // offering at once keep one token.
        try await query(
            """
            INSERT INTO apns_provider_tokens (team_id, key_id, token, issued_at)
            VALUES (\(teamID), \(keyID), \(token), \(issuedAt))
            ON CONFLICT (team_id, key_id) DO UPDATE SET token = excluded.token, issued_at = excluded.issued_at
            WHERE apns_provider_tokens.issued_at < \(stale) OR apns_provider_tokens.token = \(rejected)
            """)
        return try await providerToken(teamID: teamID, keyID: keyID) ?? candidate
    }
}
