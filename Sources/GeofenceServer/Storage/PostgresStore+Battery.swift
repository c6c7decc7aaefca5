import Foundation
import PostgresNIO

extension PostgresStore {
    /// Schema 7: each device's last reported battery level (issue 34).
    static let batteryMigration = [
        #"CREATE TABLE device_battery (tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, percent DOUBLE PRECISION NOT NULL, reported_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, device))"#
    ]

    public func recordBattery(tenant: String, device: String, percent: Double, at time: Double) async throws {
        // An older report (a delayed one) never replaces a newer one.
        _ = try await query(
            """
            INSERT INTO device_battery (tenant, device, percent, reported_at) VALUES (\(tenant), \(device), \(percent), \(time))
            ON CONFLICT (tenant, device) DO UPDATE SET percent = excluded.percent, reported_at = excluded.reported_at
              WHERE excluded.reported_at >= device_battery.reported_at
            """)
    }

    public func batteries(tenant: String, devices: [String]) async throws -> [String: BatteryReport] {
        guard !devices.isEmpty else { return [:] }
        var out: [String: BatteryReport] = [:]
        for row in try await query(
            "SELECT device, percent, reported_at FROM device_battery WHERE tenant = \(tenant) AND device = ANY(\(devices))"
        ) {
            let (d, p, t) = try row.decode((String, Double, Double).self)
            out[d] = BatteryReport(percent: p, time: t)
        }
        return out
    }
}
