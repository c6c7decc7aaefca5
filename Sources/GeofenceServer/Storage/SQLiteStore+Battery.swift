import Foundation
import SQLiteNIO

extension SQLiteStore {
    /// Schema 6: each device's last reported battery level (issue 34).
    static let batteryMigration = [
        "CREATE TABLE device_battery (tenant TEXT NOT NULL, device TEXT NOT NULL, percent REAL NOT NULL, reported_at REAL NOT NULL, PRIMARY KEY (tenant, device)) WITHOUT ROWID"
    ]

    public func recordBattery(tenant: String, device: String, percent: Double, at time: Double) async throws {
        try await transaction { s in
            // An older report (a delayed one) never replaces a newer one.
            try s.query(
                """
                INSERT INTO device_battery (tenant, device, percent, reported_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (tenant, device) DO UPDATE SET percent = excluded.percent, reported_at = excluded.reported_at
                  WHERE excluded.reported_at >= device_battery.reported_at
                """, [.text(tenant), .text(device), .float(percent), .float(time)])
        }
    }

    public func batteries(tenant: String, devices: [String]) async throws -> [String: BatteryReport] {
        guard !devices.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: devices.count).joined(separator: ", ")
        let sql = "SELECT device, percent, reported_at FROM device_battery WHERE tenant = ? AND device IN (\(marks))"
        let binds: [SQLiteData] = [.text(tenant)] + devices.map { .text($0) }
        let rows = try await read { s in try s.query(sql, binds) }
        var out: [String: BatteryReport] = [:]
        for row in rows {
            guard let d = row.column("device")?.string, let p = row.column("percent")?.double,
                let t = row.column("reported_at")?.double
            else { continue }
            out[d] = BatteryReport(percent: p, time: t)
        }
        return out
    }
}
