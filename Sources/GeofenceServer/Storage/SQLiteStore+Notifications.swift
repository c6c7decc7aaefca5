import Foundation
import NIOConcurrencyHelpers
import SQLiteNIO

/// Notifications on SQLite (``NotificationStore``'s rules): the queue is filled by a trigger on
/// the outbox, so it commits with the event; planning is in `SQLiteStore+NotificationPlanning`.
/// The log and the caps are in the worker's ledger (``SQLiteNotificationLedger``), and every
/// call of the worker's runs on its connection.
extension SQLiteStore: NotificationStore {
    /// Push tokens, rules, device settings, the queue (fed by the outbox trigger), the delivery
    /// log and the cap's memory (the last two since moved to the ledger: ``ledgerMove``).
    /// Idempotent (`IF NOT EXISTS`): it may run again after an earlier migration is re-run.
    static let notificationMigration = [
        "CREATE TABLE IF NOT EXISTS push_tokens (tenant TEXT NOT NULL, device TEXT NOT NULL, token TEXT NOT NULL, service TEXT NOT NULL, service_name TEXT NOT NULL, environment TEXT, registered_at REAL NOT NULL, PRIMARY KEY (tenant, device, token)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS notification_rules (tenant TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (tenant, id)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS notification_settings (tenant TEXT NOT NULL, device TEXT NOT NULL, body TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, device)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS notification_queue (outbox_id INTEGER PRIMARY KEY, tenant TEXT NOT NULL, device TEXT NOT NULL)",
        """
        CREATE TRIGGER IF NOT EXISTS outbox_notifications AFTER INSERT ON outbox
        WHEN EXISTS (SELECT 1 FROM notification_rules r WHERE r.tenant = NEW.tenant)
          AND EXISTS (SELECT 1 FROM push_tokens p WHERE p.tenant = NEW.tenant AND p.device = NEW.device)
        BEGIN
          INSERT INTO notification_queue (outbox_id, tenant, device) VALUES (NEW.id, NEW.tenant, NEW.device);
        END
        """,
        "CREATE TABLE IF NOT EXISTS notifications (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, device TEXT NOT NULL, event_id TEXT NOT NULL, rule_id TEXT NOT NULL, token TEXT NOT NULL, service TEXT NOT NULL, service_name TEXT NOT NULL, environment TEXT, message_id TEXT NOT NULL, content TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at REAL NOT NULL, service_id TEXT, created_at REAL NOT NULL, sent_at REAL, UNIQUE (event_id, token))",
        "CREATE INDEX IF NOT EXISTS notifications_due ON notifications (next_attempt_at, id) WHERE state = 'pending'",
        "CREATE INDEX IF NOT EXISTS notifications_device ON notifications (tenant, device, id)",
        "CREATE TABLE IF NOT EXISTS notification_caps (tenant TEXT NOT NULL, device TEXT NOT NULL, region TEXT NOT NULL, notified_at REAL NOT NULL, PRIMARY KEY (tenant, device, region)) WITHOUT ROWID",
    ]

    // MARK: Tokens

    public func putPushToken(tenant: String, device: String, _ token: PushToken) async throws -> Bool {
        let (service, name, environment) = token.storedService
        return try await transaction { s in
            let others =
                try s.query(
                    "SELECT COUNT(*) AS n FROM push_tokens WHERE tenant = ? AND device = ? AND token <> ?",
                    [.text(tenant), .text(device), .text(token.token)]
                ).first?.column("n")?.integer ?? 0
            guard others < PushToken.maximumPerDevice else { return false }
            try s.query(
                """
                INSERT INTO push_tokens (tenant, device, token, service, service_name, environment, registered_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (tenant, device, token) DO UPDATE SET service = excluded.service,
                  service_name = excluded.service_name, environment = excluded.environment,
                  registered_at = excluded.registered_at
                """,
                [
                    .text(tenant), .text(device), .text(token.token), .text(service), .text(name),
                    environment.map { .text($0) } ?? .null, .float(token.registeredAt.timeIntervalSince1970),
                ])
            return true
        }
    }

    public func deletePushToken(tenant: String, device: String, token: String) async throws -> Bool {
        try await transaction { s in
            !(try s.query(
                "DELETE FROM push_tokens WHERE tenant = ? AND device = ? AND token = ? RETURNING token",
                [.text(tenant), .text(device), .text(token)]
            ).isEmpty)
        }
    }

    public func pushTokens(tenant: String, device: String) async throws -> [PushToken] {
        try await read { s in try Self.tokens(s, tenant: tenant, device: device) }
    }

    static func tokens(_ s: SQLiteSession, tenant: String, device: String) throws -> [PushToken] {
        try s.query(
            """
            SELECT token, service, service_name, environment, registered_at FROM push_tokens
            WHERE tenant = ? AND device = ? ORDER BY registered_at, token
            """, [.text(tenant), .text(device)]
        ).compactMap { row in
            PushToken(
                token: row.column("token")?.string ?? "", service: row.column("service")?.string ?? "",
                name: row.column("service_name")?.string ?? "", environment: row.column("environment")?.string,
                registeredAt: row.column("registered_at")?.double ?? 0)
        }
    }

    // MARK: Rules and settings

    public func addNotificationRule(tenant: String, _ rule: NotificationRule, now: Date) async throws -> Bool {
        let body = Self.text(rule.json)
        return try await transaction { s in
            let count =
                try s.query("SELECT COUNT(*) AS n FROM notification_rules WHERE tenant = ?", [.text(tenant)])
                .first?.column("n")?.integer ?? 0
            guard count < NotificationRule.maximumPerTenant else { return false }
            return
                !(try s.query(
                    "INSERT INTO notification_rules (tenant, id, body, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
                    [.text(tenant), .text(rule.id), body, .float(now.timeIntervalSince1970)]
                ).isEmpty)
        }
    }

    public func notificationRules(tenant: String) async throws -> [NotificationRule] {
        try await read { s in try Self.rules(s, tenant: tenant) }
    }

    static func rules(_ s: SQLiteSession, tenant: String) throws -> [NotificationRule] {
        try s.query("SELECT id, body FROM notification_rules WHERE tenant = ? ORDER BY id", [.text(tenant)])
            .compactMap { row in
                try? NotificationRule.parse(SQLiteStore.parse(row, "body"), generatedID: row.column("id")?.string ?? "")
            }
    }

    public func deleteNotificationRule(tenant: String, id: String) async throws -> Bool {
        try await transaction { s in
            !(try s.query(
                "DELETE FROM notification_rules WHERE tenant = ? AND id = ? RETURNING id", [.text(tenant), .text(id)]
            ).isEmpty)
        }
    }

    public func notificationSettings(tenant: String, device: String) async throws -> DeviceNotificationSettings {
        try await read { s in try Self.settings(s, tenant: tenant, device: device) }
    }

    static func settings(_ s: SQLiteSession, tenant: String, device: String) throws -> DeviceNotificationSettings {
        DeviceNotificationSettings(
            stored: try s.query(
                "SELECT body FROM notification_settings WHERE tenant = ? AND device = ?",
                [.text(tenant), .text(device)]
            ).first.map { SQLiteStore.parse($0, "body") })
    }

    public func putNotificationSettings(
        tenant: String, device: String, _ settings: DeviceNotificationSettings, now: Date
    ) async throws {
        let body = Self.text(settings.json)
        try await transaction { s in
            try s.query(
                """
                INSERT INTO notification_settings (tenant, device, body, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (tenant, device) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
                """, [.text(tenant), .text(device), body, .float(now.timeIntervalSince1970)])
        }
    }

    // MARK: Delivery
    // The worker's calls run on its connection, in the background lane (``ConnectionThread``).

    public func dueNotifications(now: Date, limit: Int) async throws -> [DueNotification] {
        let t = now.timeIntervalSince1970
        let anyDue = try await read(.background, on: worker) { s in
            !(try s.query(
                "SELECT 1 AS x FROM ledger.notifications WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1",
                [.float(t)]
            ).isEmpty)
        }
        guard anyDue else { return [] }
        let rows = try await transaction(.background, on: worker) { s in
            let rows = try s.query(
                """
                SELECT n.id AS id, n.tenant AS tenant, n.device AS device, n.token AS token, n.service AS service,
                  n.service_name AS service_name, n.environment AS environment, n.message_id AS message_id,
                  n.content AS content, n.attempts AS attempts, s.body AS settings
                FROM ledger.notifications n
                LEFT JOIN notification_settings s ON s.tenant = n.tenant AND s.device = n.device
                WHERE n.state = 'pending' AND n.next_attempt_at <= ? ORDER BY n.next_attempt_at, n.id LIMIT ?
                """, [.float(t), .integer(limit)])
            for row in rows {
                try s.query(
                    "UPDATE ledger.notifications SET next_attempt_at = ? WHERE id = ?",
                    [.float(t + notificationLeaseSeconds), row.column("id") ?? .null])
            }
            return rows
        }
        return rows.compactMap { row in
            NotificationColumns.due(
                id: Int64(row.column("id")?.integer ?? 0), tenant: row.column("tenant")?.string ?? "",
                device: row.column("device")?.string ?? "", token: row.column("token")?.string ?? "",
                service: row.column("service")?.string ?? "", name: row.column("service_name")?.string ?? "",
                environment: row.column("environment")?.string, messageID: row.column("message_id")?.string ?? "",
                content: SQLiteStore.parse(row, "content"), attempts: row.column("attempts")?.integer ?? 0,
                settings: SQLiteStore.parse(row, "settings"))
        }
    }

    public func recordNotifications(_ outcomes: [RecordedOutcome], now: Date) async throws {
        guard !outcomes.isEmpty else { return }
        let t = now.timeIntervalSince1970
        let invalid = NIOLockedValueBox<[InvalidToken]>([])
        try await backgroundSteps(on: worker, count: outcomes.count) { s, i in
            if let token = try Self.record(s, id: outcomes[i].id, outcome: outcomes[i].outcome, at: t) {
                invalid.withLockedValue { $0.append(token) }
            }
        }
        try await removeInvalidTokens(invalid.withLockedValue { $0 })
    }

    /// A token a push service called invalid: removed unless registered again since `since`.
    private struct InvalidToken: Sendable {
        var tenant, device, token: SQLiteData
        var since: SQLiteData
    }

    /// Records one answer in the log; returns the token to remove for an invalid one.
    private static func record(
        _ s: SQLiteSession, id: Int64, outcome: NotificationOutcome, at t: Double
    ) throws -> InvalidToken? {
        let row = SQLiteData.integer(Int(id))
        switch outcome {
        case .delivered(let serviceID):
            try s.query(
                """
                UPDATE ledger.notifications SET state = 'delivered', attempts = attempts + 1, reason = NULL,
                  service_id = ?, sent_at = ? WHERE id = ? AND state = 'pending'
                """, [serviceID.map { .text($0) } ?? .null, .float(t), row])
        case .held(let until):
            try s.query(
                "UPDATE ledger.notifications SET next_attempt_at = ? WHERE id = ? AND state = 'pending'",
                [.float(until.timeIntervalSince1970), row])
        case .retry(let reason, let next):
            try s.query(
                """
                UPDATE ledger.notifications SET attempts = attempts + 1, reason = ?, next_attempt_at = ?
                WHERE id = ? AND state = 'pending'
                """, [.text(reason), .float(next.timeIntervalSince1970), row])
        case .tokenInvalid(let reason, let since):
            let rows = try s.query(
                """
                UPDATE ledger.notifications SET state = 'token-invalid', attempts = attempts + 1, reason = ?,
                  sent_at = ? WHERE id = ? AND state = 'pending' RETURNING tenant, device, token
                """, [.text(reason), .float(t), row])
            guard let invalid = rows.first else { return nil }
            return InvalidToken(
                tenant: invalid.column("tenant") ?? .null, device: invalid.column("device") ?? .null,
                token: invalid.column("token") ?? .null, since: since.map { .float($0.timeIntervalSince1970) } ?? .null)
        case .ended(let state, let reason):
            try s.query(
                """
                UPDATE ledger.notifications SET state = ?, attempts = attempts + 1, reason = ?, sent_at = ?
                WHERE id = ? AND state = 'pending'
                """, [.text(state), .text(reason), .float(t), row])
        }
        return nil
    }

    /// Removes the tokens the push services called invalid, on the writer's connection (the
    /// tokens are in the store's file), after their notifications' records committed. A crash
    /// in between keeps a token: its next notification is refused again and removes it then.
    private func removeInvalidTokens(_ tokens: [InvalidToken]) async throws {
        guard !tokens.isEmpty else { return }
        try await transaction(.background) { s in
            for t in tokens {
                // Registered again after the service last knew the token valid: the phone has
                // it anew, so it stays.
                try s.query(
                    """
                    DELETE FROM push_tokens WHERE tenant = ? AND device = ? AND token = ?
                      AND (? IS NULL OR registered_at <= ?)
                    """, [t.tenant, t.device, t.token, t.since, t.since])
            }
        }
    }

    public func pruneNotifications(before: Date, limit: Int) async throws -> Int {
        try await transaction(.background, on: worker) { s in
            try s.query(
                """
                DELETE FROM ledger.notifications
                WHERE id IN (SELECT id FROM ledger.notifications ORDER BY id LIMIT ?)
                  AND created_at < ? AND state <> 'pending' RETURNING id
                """, [.integer(limit), .float(before.timeIntervalSince1970)]
            ).count
        }
    }

    public func notificationLog(tenant: String, device: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        let rows = try await read(on: worker) { s in
            try s.query(
                """
                SELECT id, event_id, rule_id, token, service, message_id, content, state, reason, attempts,
                  next_attempt_at, created_at, sent_at FROM ledger.notifications
                WHERE tenant = ? AND device = ? AND id > ? ORDER BY id LIMIT ?
                """, [.text(tenant), .text(device), .integer(Int(after)), .integer(limit)])
        }
        return rows.map { row in
            NotificationColumns.logEntry(
                id: Int64(row.column("id")?.integer ?? 0), eventID: row.column("event_id")?.string ?? "",
                ruleID: row.column("rule_id")?.string ?? "", token: row.column("token")?.string ?? "",
                service: row.column("service")?.string ?? "", messageID: row.column("message_id")?.string ?? "",
                content: SQLiteStore.parse(row, "content"), state: row.column("state")?.string ?? "",
                reason: row.column("reason")?.string, attempts: row.column("attempts")?.integer ?? 0,
                nextAttemptAt: row.column("next_attempt_at")?.double ?? 0,
                createdAt: row.column("created_at")?.double ?? 0, sentAt: row.column("sent_at")?.double)
        }
    }
}
