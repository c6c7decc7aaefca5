import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// The NFC migration (``IdentifierMigration``) with PostgreSQL's own `normalize(…, NFC)`
    /// (PostgreSQL 13 or later, a UTF-8 database).
    static let identifierMigration = IdentifierMigration.statements(
        nfc: nfc,
        // PostgreSQL's quick check first, where normalize() would rewrite every document.
        changed: { "\($0) IS NOT NFC NORMALIZED" },
        tables: identifierTables,
        tenantColumns: ["created_at", "region_version"])

    /// The tables and columns that hold identifiers, `tenants` aside.
    static let identifierTables: [IdentifierMigration.Table] = [
        .init(name: "api_keys", columns: ["tenant", "scope"]),
        .init(name: "regions", columns: ["tenant", "id", "feature"]),
        .init(name: "journal", columns: ["tenant", "device", "body"]),
        .init(name: "devices", columns: ["tenant", "id", "last_fix"]),
        .init(name: "event_cursors", columns: ["tenant"]),
        .init(name: "outbox", columns: ["tenant", "device", "body"]),
        .init(name: "webhooks", columns: ["tenant"]),
        .init(name: "deliveries", columns: ["tenant"]),
        .init(name: "settings", columns: ["tenant", "device", "body"]),
        .init(name: "engine_snapshots", columns: ["tenant"]),
        .init(name: "journal_marks", columns: ["tenant"]),
        .init(name: "event_horizons", columns: ["tenant"]),
        .init(name: "device_battery", columns: ["tenant", "device"]),
    ]

    static func nfc(_ column: String) -> String { "normalize(\(column), NFC)" }

    /// Throws ``IdentifierCollision`` when the NFC migration would make two stored rows one.
    static func refuseIdentifierCollisions(_ c: PostgresConnection, logger: Logger) async throws {
        var pairs: [(table: String, first: String, second: String)] = []
        for query in IdentifierMigration.collisionQueries(nfc: nfc) {
            for row in try await run(c, PostgresQuery(unsafeSQL: query), logger) {
                let (table, a, b) = try row.decode((String, String, String).self)
                pairs.append((table, a, b))
            }
        }
        if !pairs.isEmpty { throw IdentifierCollision(pairs: pairs) }
    }
}
