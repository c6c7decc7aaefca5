import Foundation
import PostgresNIO

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
