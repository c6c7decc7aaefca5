import Foundation

/// The migration that brings a store written before identifiers were normalized
/// (``Identifier``) to the rule: every stored identifier rewritten in Unicode NFC, once.
///
/// Both stores run the same statements (``statements(nfc:changed:tables:tenantColumns:)``) with their
/// own NFC function: `geofence_nfc`, ``Identifier/normalized(_:)`` itself, in SQLite;
/// PostgreSQL's `normalize(…, NFC)`. JSON documents (journal entries, stored features, last
/// fixes, outbox events, settings) are rewritten whole: their ids are strings in them, and the
/// rest of their text only changes into a canonically equivalent spelling. A tenant whose ids
/// change loses its engine snapshot (which names the old spellings) and replays its journal.
///
/// Two stored rows that the rule makes one (a device `é` and a device `e` + U+0301 of one
/// tenant) cannot be merged without choosing whose state wins: before anything is rewritten,
/// ``collisionQueries(nfc:keys:)`` finds them and the migration stops with an
/// ``IdentifierCollision`` naming them, for the operator to resolve.
enum IdentifierMigration {
    /// A table and its columns holding identifiers or JSON documents with identifiers.
    struct Table {
        var name: String
        var columns: [String]
    }

    /// A table whose `key` must stay unique once normalized.
    struct Key {
        var table: String
        var columns: [String]
    }

    /// The statements of the migration, in order: `nfc` writes the SQL of its argument's NFC,
    /// `changed` the SQL of "its argument is not NFC" (the store's quickest test);
    /// `tenantColumns` lists the columns of `tenants` after its `id`.
    static func statements(
        nfc: (String) -> String, changed: (String) -> String, tables: [Table], tenantColumns: [String]
    ) -> [String] {
        let others = tenantColumns.joined(separator: ", ")
        let affected = """
            SELECT id FROM tenants WHERE \(changed("id")) \
            UNION SELECT tenant FROM devices WHERE \(changed("id")) \
            UNION SELECT tenant FROM regions WHERE \(changed("id"))
            """
        var out = [
            // Taken before any row changes, so that every affected tenant's snapshot goes.
            "DELETE FROM engine_snapshots WHERE tenant IN (\(affected))",
            // A new tenant row first, the old one last: api_keys refers to tenants.
            "INSERT INTO tenants (id, \(others)) SELECT \(nfc("id")), \(others) FROM tenants WHERE \(changed("id"))",
        ]
        for t in tables {
            let set = t.columns.map { "\($0) = \(nfc($0))" }.joined(separator: ", ")
            let filter = t.columns.map(changed).joined(separator: " OR ")
            out.append("UPDATE \(t.name) SET \(set) WHERE \(filter)")
        }
        out.append("DELETE FROM tenants WHERE \(changed("id"))")
        return out
    }

    /// The unique keys that normalization could make collide (a tenant's collision shows in
    /// `tenants` itself).
    static let keys = [
        Key(table: "tenants", columns: ["id"]), Key(table: "regions", columns: ["tenant", "id"]),
        Key(table: "devices", columns: ["tenant", "id"]), Key(table: "settings", columns: ["tenant", "device"]),
        Key(table: "device_battery", columns: ["tenant", "device"]),
    ]

    /// One query per key: rows `(tbl, a, b)`, two stored spellings of one normalized key
    /// (each its columns joined by `/`), at most 5 per table.
    static func collisionQueries(nfc: (String) -> String, keys: [Key] = keys) -> [String] {
        keys.map { k in
            let joined = k.columns.joined(separator: " || '/' || ")
            let normalized = k.columns.map(nfc).joined(separator: ", ")
            return """
                SELECT '\(k.table)' AS tbl, MIN(\(joined)) AS a, MAX(\(joined)) AS b FROM \(k.table) \
                GROUP BY \(normalized) HAVING COUNT(*) > 1 LIMIT 5
                """
        }
    }
}

/// The store holds rows that identifier normalization makes one (``IdentifierMigration``):
/// the migration rewrote nothing. Each pair is a table and two stored spellings (a tenant's
/// rows as `tenant/id`), shown with their Unicode scalars so that the difference is visible.
public struct IdentifierCollision: Error, CustomStringConvertible, Sendable {
    public var pairs: [(table: String, first: String, second: String)]

    public var description: String {
        let list = pairs.map { "\($0.table): \(Self.spelled($0.first)) and \(Self.spelled($0.second))" }
        return """
            the database holds identifiers that are one under Unicode NFC, which this version \
            compares ids in (docs/server.md, "Identifiers"): \(list.joined(separator: "; ")). \
            Delete or rename one of each pair (with the previous version, or in SQL), then start again.
            """
    }

    /// `s` quoted, its non-ASCII scalars written `\u{…}`.
    static func spelled(_ s: String) -> String {
        "\""
            + s.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}" }
            .joined() + "\""
    }
}
