import Foundation
import PostgresNIO

extension PostgresStore {
    /// Migration step: one settings document per tenant (device `''`) and per overridden device.
    static let settingsTable =
        #"CREATE TABLE settings (tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, body TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, device))"#

    public func settings(tenant: String, device: String?) async throws -> (tenant: ServerJSON?, device: ServerJSON?) {
        let d = device ?? ""
        let rows = try await query(
            "SELECT device, body FROM settings WHERE tenant = \(tenant) AND device IN ('', \(d))")
        var out: (tenant: ServerJSON?, device: ServerJSON?) = (nil, nil)
        for row in rows {
            let (device, body) = try row.decode((String, String).self)
            if device.isEmpty { out.tenant = Self.parse(body) } else { out.device = Self.parse(body) }
        }
        return out
    }

    public func putSettings(tenant: String, device: String?, _ document: ServerJSON, now: Date) async throws {
        let d = device ?? ""
        let body = Self.text(document)
        let t = now.timeIntervalSince1970
        _ = try await query(
            """
            INSERT INTO settings (tenant, device, body, updated_at) VALUES (\(tenant), \(d), \(body), \(t))
            ON CONFLICT (tenant, device) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at
            """)
    }
}
