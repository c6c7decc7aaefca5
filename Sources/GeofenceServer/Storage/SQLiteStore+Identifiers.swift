import Foundation
import VaporCSQLite

extension SQLiteStore {
    /// The NFC migration (``IdentifierMigration``), `geofence_nfc` being ``Identifier/normalized(_:)``.
    static let identifierMigration = IdentifierMigration.statements(
        nfc: { "geofence_nfc(\($0))" },
        changed: { "\($0) <> geofence_nfc(\($0))" },
        tables: identifierTables,
        tenantColumns: ["created_at"])

    /// The tables and columns that hold identifiers, `tenants` aside.
    static let identifierTables: [IdentifierMigration.Table] = [
        .init(name: "api_keys", columns: ["tenant", "scope"]),
        .init(name: "regions", columns: ["tenant", "id", "feature"]),
        .init(name: "journal", columns: ["tenant", "body"]),
        .init(name: "devices", columns: ["tenant", "id", "last_fix"]),
        .init(name: "outbox", columns: ["tenant", "device", "body"]),
        .init(name: "webhooks", columns: ["tenant"]),
        .init(name: "deliveries", columns: ["tenant"]),
        .init(name: "settings", columns: ["tenant", "device", "body"]),
        .init(name: "engine_snapshots", columns: ["tenant"]),
        .init(name: "journal_marks", columns: ["tenant"]),
        .init(name: "event_horizons", columns: ["tenant"]),
        .init(name: "device_battery", columns: ["tenant", "device"]),
    ]

    /// Throws ``IdentifierCollision`` when the NFC migration would make two stored rows one.
    static func refuseIdentifierCollisions(_ s: SQLiteSession) throws {
        var pairs: [(table: String, first: String, second: String)] = []
        for query in IdentifierMigration.collisionQueries(nfc: { "geofence_nfc(\($0))" }) {
            for row in try s.query(query) {
                pairs.append(
                    (row.column("tbl")?.string ?? "", row.column("a")?.string ?? "", row.column("b")?.string ?? ""))
            }
        }
        if !pairs.isEmpty { throw IdentifierCollision(pairs: pairs) }
    }

    /// Defines `geofence_nfc(text)` on the connection: ``Identifier/normalized(_:)``, the
    /// value itself (no copy) when it is already NFC by ``Identifier/isNFCWithoutLookup(utf8:)``
    /// or not text.
    static func defineNFC(_ s: SQLiteSession) throws {
        try s.defineFunction("geofence_nfc") { context, _, values in
            guard let value = values?[0], sqlite_nio_sqlite3_value_type(value) == SQLITE_TEXT,
                let text = sqlite_nio_sqlite3_value_text(value)
            else { return sqlite_nio_sqlite3_result_value(context, values?[0]) }
            let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite_nio_sqlite3_value_bytes(value)))
            if Identifier.isNFCWithoutLookup(utf8: bytes) { return sqlite_nio_sqlite3_result_value(context, value) }
            let nfc = Identifier.normalized(String(decoding: bytes, as: UTF8.self))
            sqlite_nio_sqlite3_result_text64(
                context, nfc, UInt64(nfc.utf8.count), unsafeBitCast(-1, to: sqlite3_destructor_type.self),
                UInt8(SQLITE_UTF8))
        }
    }
}
