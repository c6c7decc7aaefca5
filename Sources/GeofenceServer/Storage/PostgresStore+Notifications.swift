import Foundation
import Logging
import PostgresNIO

/// Notifications on PostgreSQL (``NotificationStore``'s rules), shared by every instance:
/// - the queue is filled by a statement-level trigger on the outbox, in the commit's own
///   statement (`geofence_commit_fixes` inserts the events; the trigger adds the queue rows of
///   the devices with tokens in tenants with rules, one `INSERT … SELECT` per commit);
/// - planning claims queue rows with `FOR UPDATE SKIP LOCKED` (instances plan different events
///   at once) and takes `pg_advisory_xact_lock(3, hashtext(tenant/device))` for every device it
///   plans, in lock-key order, before reading the cap (two events of one device planned by two
///   instances at once cannot both pass the cap);
/// - sending claims due notifications with `FOR UPDATE SKIP LOCKED` and a lease, as webhook
///   deliveries are claimed: one send per notification at a time across instances.
extension PostgresStore: NotificationStore {
    /// Push tokens, rules, device settings, the queue (fed by the outbox trigger), the delivery
    /// log and the cap's memory. Idempotent: it may run again after an earlier migration is re-run.
    static let notificationMigration = [
        #"CREATE TABLE IF NOT EXISTS push_tokens (tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, token TEXT COLLATE "C" NOT NULL, service TEXT NOT NULL, service_name TEXT NOT NULL, environment TEXT, registered_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, device, token))"#,
        #"CREATE TABLE IF NOT EXISTS notification_rules (tenant TEXT COLLATE "C" NOT NULL, id TEXT COLLATE "C" NOT NULL, body TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, id))"#,
        #"CREATE TABLE IF NOT EXISTS notification_settings (tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, body TEXT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, device))"#,
        #"CREATE TABLE IF NOT EXISTS notification_queue (outbox_id BIGINT PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL)"#,
        #"""
        CREATE OR REPLACE FUNCTION geofence_outbox_notifications() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          INSERT INTO notification_queue (outbox_id, tenant, device)
          SELECT n.id, n.tenant, n.device FROM new_rows n
          WHERE EXISTS (SELECT 1 FROM notification_rules r WHERE r.tenant = n.tenant)
            AND EXISTS (SELECT 1 FROM push_tokens p WHERE p.tenant = n.tenant AND p.device = n.device);
          RETURN NULL;
        END
        $fn$
        """#,
        "DROP TRIGGER IF EXISTS outbox_notifications ON outbox",
        "CREATE TRIGGER outbox_notifications AFTER INSERT ON outbox REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION geofence_outbox_notifications()",
        #"CREATE TABLE IF NOT EXISTS notifications (id BIGSERIAL PRIMARY KEY, tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, event_id TEXT NOT NULL, rule_id TEXT NOT NULL, token TEXT NOT NULL, service TEXT NOT NULL, service_name TEXT NOT NULL, environment TEXT, message_id TEXT NOT NULL, content TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, attempts BIGINT NOT NULL DEFAULT 0, next_attempt_at DOUBLE PRECISION NOT NULL, service_id TEXT, created_at DOUBLE PRECISION NOT NULL, sent_at DOUBLE PRECISION, UNIQUE (event_id, token))"#,
        "CREATE INDEX IF NOT EXISTS notifications_due ON notifications (next_attempt_at, id) WHERE state = 'pending'",
        "CREATE INDEX IF NOT EXISTS notifications_device ON notifications (tenant, device, id)",
        #"CREATE TABLE IF NOT EXISTS notification_caps (tenant TEXT COLLATE "C" NOT NULL, device TEXT COLLATE "C" NOT NULL, region TEXT COLLATE "C" NOT NULL, notified_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (tenant, device, region))"#,
    ]

    // MARK: Tokens

    public func putPushToken(tenant: String, device: String, _ token: PushToken) async throws -> Bool {
        let (service, name, environment) = token.storedService
        let t = token.registeredAt.timeIntervalSince1970
        let value = token.token
        return try await transaction { c in
            // Registrations of one device are serialised, so the bound holds under concurrency.
            try await Self.run(c, "SELECT pg_advisory_xact_lock(4, hashtext(\(tenant + "/" + device)))", logger)
            let others =
                try await Self.run(
                    c,
                    "SELECT COUNT(*) FROM push_tokens WHERE tenant = \(tenant) AND device = \(device) AND token <> \(value)",
                    logger
                ).first?.decode(Int.self) ?? 0
            guard others < PushToken.maximumPerDevice else { return false }
            try await Self.run(
                c,
                """
                INSERT INTO push_tokens (tenant, device, token, service, service_name, environment, registered_at)
                VALUES (\(tenant), \(device), \(value), \(service), \(name), \(environment), \(t))
                ON CONFLICT (tenant, device, token) DO UPDATE SET service = excluded.service,
                  service_name = excluded.service_name, environment = excluded.environment,
                  registered_at = excluded.registered_at
                """, logger)
            return true
        }
    }

    public func deletePushToken(tenant: String, device: String, token: String) async throws -> Bool {
        !(try await query(
            "DELETE FROM push_tokens WHERE tenant = \(tenant) AND device = \(device) AND token = \(token) RETURNING token"
        ).isEmpty)
    }

    public func pushTokens(tenant: String, device: String) async throws -> [PushToken] {
        try await Self.tokens(
            query(
                """
                SELECT token, service, service_name, environment, registered_at FROM push_tokens
                WHERE tenant = \(tenant) AND device = \(device) ORDER BY registered_at, token
                """))
    }

    static func tokens(_ rows: [PostgresRow]) throws -> [PushToken] {
        try rows.compactMap { row in
            let (token, service, name, environment, at) = try row.decode((String, String, String, String?, Double).self)
            return PushToken(token: token, service: service, name: name, environment: environment, registeredAt: at)
        }
    }

    // MARK: Rules and settings

    public func addNotificationRule(tenant: String, _ rule: NotificationRule, now: Date) async throws -> Bool {
        let body = Self.text(rule.json)
        let t = now.timeIntervalSince1970
        let id = rule.id
        return try await transaction { c in
            try await Self.run(c, "SELECT pg_advisory_xact_lock(4, hashtext(\(tenant)))", logger)
            let count =
                try await Self.run(c, "SELECT COUNT(*) FROM notification_rules WHERE tenant = \(tenant)", logger)
                .first?.decode(Int.self) ?? 0
            guard count < NotificationRule.maximumPerTenant else { return false }
            return
                !(try await Self.run(
                    c,
                    """
                    INSERT INTO notification_rules (tenant, id, body, created_at) VALUES (\(tenant), \(id), \(body), \(t))
                    ON CONFLICT DO NOTHING RETURNING id
                    """, logger
                ).isEmpty)
        }
    }

    public func notificationRules(tenant: String) async throws -> [NotificationRule] {
        try Self.rules(try await query("SELECT id, body FROM notification_rules WHERE tenant = \(tenant) ORDER BY id"))
    }

    static func rules(_ rows: [PostgresRow]) throws -> [NotificationRule] {
        try rows.compactMap { row in
            let (id, body) = try row.decode((String, String).self)
            return try? NotificationRule.parse(parse(body), generatedID: id)
        }
    }

    public func deleteNotificationRule(tenant: String, id: String) async throws -> Bool {
        !(try await query("DELETE FROM notification_rules WHERE tenant = \(tenant) AND id = \(id) RETURNING id").isEmpty)
    }

    public func notificationSettings(tenant: String, device: String) async throws -> DeviceNotificationSettings {
        let row = try await query(
            "SELECT body FROM notification_settings WHERE tenant = \(tenant) AND device = \(device)"
        ).first
        return DeviceNotificationSettings(stored: try row.map { Self.parse(try $0.decode(String.self)) })
    }

    public func putNotificationSettings(
        tenant: String, device: String, _ settings: DeviceNotificationSettings, now: Date
    ) async throws {
        let body = Self.text(settings.json)
        let t = now.timeIntervalSince1970
        try await query(
            """
            INSERT INTO notification_settings (tenant, device, body, updated_at) VALUES (\(tenant), \(device), \(body), \(t))
            ON CONFLICT (tenant, device) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
            """)
    }

    // MARK: Planning and delivery

    public func planNotifications(now: Date, limit: Int) async throws -> Int {
        let t = now.timeIntervalSince1970
        return try await transaction { c in
            let queued = try await Self.run(
                c,
                """
                SELECT q.outbox_id, q.tenant, q.device, o.body FROM notification_queue q
                LEFT JOIN outbox o ON o.id = q.outbox_id ORDER BY q.outbox_id LIMIT \(limit) FOR UPDATE OF q SKIP LOCKED
                """, logger
            ).map { try $0.decode((Int, String, String, String?).self) }
            guard !queued.isEmpty else { return 0 }
            // The devices' locks in lock-key order: two planners never wait on each other in a cycle.
            let keys = Array(Set(queued.map { $0.1 + "/" + $0.2 }))
            let hashes = try await Self.run(
                c, "SELECT DISTINCT hashtext(k) AS h FROM unnest(\(keys)::text[]) AS k ORDER BY h", logger
            ).map { try $0.decode(Int32.self) }
            for h in hashes { try await Self.run(c, "SELECT pg_advisory_xact_lock(3, \(h))", logger) }
            try await Self.run(
                c, "DELETE FROM notification_queue WHERE outbox_id = ANY(\(queued.map(\.0))::bigint[])", logger)
            var rules: [String: [NotificationRule]] = [:]
            for (_, tenant, device, body) in queued {
                guard let event = OutboxEvent(Self.parse(body)) else { continue }
                if rules[tenant] == nil {
                    rules[tenant] = try Self.rules(
                        try await Self.run(
                            c, "SELECT id, body FROM notification_rules WHERE tenant = \(tenant) ORDER BY id", logger))
                }
                let region = event.region
                let feature = try await Self.run(
                    c, "SELECT feature FROM regions WHERE tenant = \(tenant) AND id = \(region)", logger
                ).first.map { Self.parse(try $0.decode(String.self)) }
                let last = try await Self.run(
                    c,
                    "SELECT notified_at FROM notification_caps WHERE tenant = \(tenant) AND device = \(device) AND region = \(region)",
                    logger
                ).first?.decode(Double.self)
                let settings = DeviceNotificationSettings(
                    stored: try await Self.run(
                        c, "SELECT body FROM notification_settings WHERE tenant = \(tenant) AND device = \(device)",
                        logger
                    ).first.map { Self.parse(try $0.decode(String.self)) })
                let tokens = try Self.tokens(
                    try await Self.run(
                        c,
                        """
                        SELECT token, service, service_name, environment, registered_at FROM push_tokens
                        WHERE tenant = \(tenant) AND device = \(device) ORDER BY registered_at, token
                        """, logger))
                let plan = NotificationPlanner.plan(
                    event: event, rules: rules[tenant] ?? [], region: RegionFacts(id: region, feature: feature),
                    settings: settings, tokens: tokens, lastNotified: last.map { Date(timeIntervalSince1970: $0) },
                    now: now)
                for n in plan.notifications {
                    try await Self.insert(c, n, tenant: tenant, device: device, event: event, now: t, logger: logger)
                }
                if let noted = plan.capNotedAt?.timeIntervalSince1970 {
                    try await Self.run(
                        c,
                        """
                        INSERT INTO notification_caps AS nc (tenant, device, region, notified_at)
                        VALUES (\(tenant), \(device), \(region), \(noted))
                        ON CONFLICT (tenant, device, region) DO UPDATE SET notified_at = excluded.notified_at
                          WHERE excluded.notified_at > nc.notified_at
                        """, logger)
                }
            }
            return queued.count
        }
    }

    static func insert(
        _ c: PostgresConnection, _ n: PlannedNotification, tenant: String, device: String, event: OutboxEvent,
        now t: Double, logger: Logger
    ) async throws {
        let (service, name, environment) = NotificationColumns.service(n.message.destination.service)
        let (state, reason, at): (String, String?, Double) =
            switch n.state {
            case .pending(let at): ("pending", nil, at.timeIntervalSince1970)
            case .dropped(let why): ("dropped", why, t)
            }
        let token = n.message.destination.token
        let messageID = n.message.id.uuidString.lowercased()
        let content = text(n.storedContent)
        let ruleID = n.ruleID
        let eventID = event.id
        try await run(
            c,
            """
            INSERT INTO notifications (tenant, device, event_id, rule_id, token, service, service_name, environment,
              message_id, content, state, reason, next_attempt_at, created_at)
            VALUES (\(tenant), \(device), \(eventID), \(ruleID), \(token), \(service), \(name), \(environment),
              \(messageID), \(content), \(state), \(reason), \(at), \(t))
            ON CONFLICT (event_id, token) DO NOTHING
            """, logger)
    }

    public func dueNotifications(now: Date, limit: Int) async throws -> [DueNotification] {
        let t = now.timeIntervalSince1970
        let lease = t + notificationLeaseSeconds
        let rows = try await query(
            """
            WITH due AS (
              SELECT id FROM notifications WHERE state = 'pending' AND next_attempt_at <= \(t)
              ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            UPDATE notifications n SET next_attempt_at = \(lease) FROM due WHERE n.id = due.id
            RETURNING n.id, n.tenant, n.device, n.token, n.service, n.service_name, n.environment, n.message_id,
              n.content, n.attempts,
              (SELECT s.body FROM notification_settings s WHERE s.tenant = n.tenant AND s.device = n.device)
            """)
        return try rows.compactMap { row in
            let (id, tenant, device, token, service, name, environment, messageID, content, attempts, settings) =
                try row.decode(
                    (Int, String, String, String, String, String, String?, String, String, Int, String?).self)
            return NotificationColumns.due(
                id: Int64(id), tenant: tenant, device: device, token: token, service: service, name: name,
                environment: environment, messageID: messageID, content: Self.parse(content), attempts: attempts,
                settings: settings.map { Self.parse($0) })
        }.sorted { $0.id < $1.id }
    }

    public func recordNotifications(_ outcomes: [RecordedOutcome], now: Date) async throws {
        guard !outcomes.isEmpty else { return }
        let t = now.timeIntervalSince1970
        try await transaction { c in
            for o in outcomes { try await Self.record(c, id: o.id, outcome: o.outcome, at: t, logger) }
        }
    }

    private static func record(
        _ c: PostgresConnection, id: Int64, outcome: NotificationOutcome, at t: Double, _ logger: Logger
    ) async throws {
        let row = Int(id)
        switch outcome {
        case .delivered(let serviceID):
            try await run(
                c,
                """
                UPDATE notifications SET state = 'delivered', attempts = attempts + 1, reason = NULL,
                  service_id = \(serviceID), sent_at = \(t) WHERE id = \(row) AND state = 'pending'
                """, logger)
        case .held(let until):
            let at = until.timeIntervalSince1970
            try await run(
                c, "UPDATE notifications SET next_attempt_at = \(at) WHERE id = \(row) AND state = 'pending'", logger)
        case .retry(let reason, let next):
            let at = next.timeIntervalSince1970
            try await run(
                c,
                """
                UPDATE notifications SET attempts = attempts + 1, reason = \(reason), next_attempt_at = \(at)
                WHERE id = \(row) AND state = 'pending'
                """, logger)
        case .tokenInvalid(let reason, let since):
            let sinceSeconds = since?.timeIntervalSince1970
            // One statement: the log's state and the token's removal commit together. A token
            // registered again after the service last knew it valid stays.
            try await run(
                c,
                """
                WITH n AS (
                  UPDATE notifications SET state = 'token-invalid', attempts = attempts + 1, reason = \(reason),
                    sent_at = \(t) WHERE id = \(row) AND state = 'pending' RETURNING tenant, device, token)
                DELETE FROM push_tokens p USING n
                WHERE p.tenant = n.tenant AND p.device = n.device AND p.token = n.token
                  AND (\(sinceSeconds)::float8 IS NULL OR p.registered_at <= \(sinceSeconds)::float8)
                """, logger)
        case .ended(let state, let reason):
            try await run(
                c,
                """
                UPDATE notifications SET state = \(state), attempts = attempts + 1, reason = \(reason), sent_at = \(t)
                WHERE id = \(row) AND state = 'pending'
                """, logger)
        }
    }

    public func pruneNotifications(before: Date, limit: Int) async throws -> Int {
        let cut = before.timeIntervalSince1970
        return try await query(
            """
            DELETE FROM notifications WHERE id IN (SELECT id FROM notifications ORDER BY id LIMIT \(limit))
              AND created_at < \(cut) AND state <> 'pending' RETURNING id
            """
        ).count
    }

    public func notificationLog(tenant: String, device: String, after: Int64, limit: Int) async throws -> [ServerJSON] {
        let cursor = Int(after)
        let rows = try await query(
            """
            SELECT id, event_id, rule_id, token, service, message_id, content, state, reason, attempts,
              next_attempt_at, created_at, sent_at FROM notifications
            WHERE tenant = \(tenant) AND device = \(device) AND id > \(cursor) ORDER BY id LIMIT \(limit)
            """)
        return try rows.map { row in
            let (
                id, eventID, ruleID, token, service, messageID, content, state, reason, attempts, next, created, sent
            ) =
                try row.decode(
                    (Int, String, String, String, String, String, String, String, String?, Int, Double, Double, Double?)
                        .self)
            return NotificationColumns.logEntry(
                id: Int64(id), eventID: eventID, ruleID: ruleID, token: token, service: service, messageID: messageID,
                content: Self.parse(content), state: state, reason: reason, attempts: attempts, nextAttemptAt: next,
                createdAt: created, sentAt: sent)
        }
    }
}
