import Foundation
import SQLiteNIO

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
