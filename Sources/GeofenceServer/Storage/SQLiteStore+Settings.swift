import Foundation
import SQLiteNIO

extension SQLiteStore {
    /// Migration step: one settings document per tenant (device `''`) and per overridden device.
    static let settingsTable =
        "CREATE TABLE settings (tenant TEXT NOT NULL, device TEXT NOT NULL, body TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, device)) WITHOUT ROWID"

    public func settings(tenant: String, device: String?) async throws -> (tenant: ServerJSON?, device: ServerJSON?) {
        let rows = try await read { s in
            try s.query(
                "SELECT device, body FROM settings WHERE tenant = ? AND device IN ('', ?)",
                [.text(tenant), .text(device ?? "")])
        }
        var out: (tenant: ServerJSON?, device: ServerJSON?) = (nil, nil)
        for row in rows {
            let body = SQLiteStore.parse(row, "body")
            if row.column("device")?.string == "" { out.tenant = body } else { out.device = body }
        }
        return out
    }

    public func putSettings(tenant: String, device: String?, _ document: ServerJSON, now: Date) async throws {
        try await transaction { s in
            try s.query(
                "INSERT INTO settings (tenant, device, body, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (tenant, device) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
                [.text(tenant), .text(device ?? ""), SQLiteStore.text(document), .float(now.timeIntervalSince1970)])
        }
    }
}
