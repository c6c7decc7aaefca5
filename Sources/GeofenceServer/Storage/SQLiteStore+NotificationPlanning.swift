import Foundation
import GeoFormats
import SQLiteNIO

/// Planning on SQLite, in three steps, on the worker's connection (``SQLiteNotificationLedger``):
/// a read gathers a batch of queued events and what planning them needs, the plans are made off
/// the connection (JSON, templates, ids), and the writes follow in the ledger. The writer's
/// connection, which every ingestion commit waits for, sees one delete per batch
/// (``settlePlannedEvents()``).
///
/// The steps are not one transaction, so each event's write checks what its plan depended on:
/// - its `planned_events` row decides whether its notifications are inserted, so an event is
///   planned once, even by two servers on one file;
/// - the cap its plan read must be unchanged; when another planner moved it, the batch is
///   planned again, and after ``conflictRetries`` such conflicts it is gathered, planned and
///   written in one transaction.
/// A token or setting changed between the read and the write is seen by the next event, as if
/// the change had come a moment later. Every step waits in the connection's background lane
/// (``ConnectionThread``), so a request reading the log goes first
/// (``backgroundSteps(on:count:_:)``).
extension SQLiteStore {
    static let conflictRetries = 3

    public func planNotifications(now: Date, limit: Int) async throws -> Int {
        let planned = try await planBatch(now: now, limit: limit)
        try await settlePlannedEvents()
        return planned
    }

    private func planBatch(now: Date, limit: Int) async throws -> Int {
        for _ in 0..<Self.conflictRetries {
            // A read: an idle worker's poll finds the queue empty without taking a write lock.
            let batch = try await read(.background, on: worker) { s in try QueuedEvents.gather(s, limit: limit) }
            if batch.events.isEmpty { return 0 }
            let writes = batch.plan(now: now)
            do {
                try await backgroundSteps(on: worker, count: writes.events.count) { s, i in
                    try writes.apply(s, event: i)
                }
                return batch.events.count
            } catch is PlanningConflict {
                continue
            }
        }
        return try await transaction(.background, on: worker) { s in
            let batch = try QueuedEvents.gather(s, limit: limit)
            try batch.plan(now: now).apply(s)
            return batch.events.count
        }
    }
}

/// A cap a batch's plans read was moved by another planner before the batch was written.
struct PlanningConflict: Error {}

/// A batch of queued events as the store holds them, with the rules, settings, tokens, region
/// features and cap times that planning them reads.
struct QueuedEvents: Sendable {
    struct Event: Sendable {
        var outboxID: Int
        var tenant: String
        var device: String
        /// The outbox row's JSON text; `nil` when the event was pruned before it was planned.
        var body: String?
        /// The region's stored feature; `nil` when the region is gone.
        var feature: String?
        /// The cap's memory for the device and region, before this batch.
        var notifiedAt: Double?
    }

    struct Device: Hashable, Sendable {
        var tenant: String
        var device: String
    }

    var events: [Event] = []
    var rules: [String: [NotificationRule]] = [:]
    var settings: [Device: DeviceNotificationSettings] = [:]
    var tokens: [Device: [PushToken]] = [:]

    /// The oldest `limit` queued events not yet planned; one query for the events with their
    /// regions and caps, then one per tenant (rules) and two per device (settings, tokens). On
    /// the worker's connection (the ledger attached).
    static func gather(_ s: SQLiteSession, limit: Int) throws -> QueuedEvents {
        var batch = QueuedEvents()
        let rows = try s.query(
            """
            SELECT q.outbox_id AS outbox_id, q.tenant AS tenant, q.device AS device, o.body AS body,
              r.feature AS feature, c.notified_at AS notified_at
            FROM notification_queue q
            LEFT JOIN outbox o ON o.id = q.outbox_id
            LEFT JOIN regions r ON r.tenant = q.tenant AND r.id = json_extract(o.body, '$.region')
            LEFT JOIN ledger.notification_caps c
              ON c.tenant = q.tenant AND c.device = q.device AND c.region = json_extract(o.body, '$.region')
            WHERE NOT EXISTS (SELECT 1 FROM ledger.planned_events p WHERE p.outbox_id = q.outbox_id)
            ORDER BY q.outbox_id LIMIT ?
            """, [.integer(limit)])
        for row in rows {
            let event = Event(
                outboxID: row.column("outbox_id")?.integer ?? 0, tenant: row.column("tenant")?.string ?? "",
                device: row.column("device")?.string ?? "", body: row.column("body")?.string,
                feature: row.column("feature")?.string, notifiedAt: row.column("notified_at")?.double)
            batch.events.append(event)
            if batch.rules[event.tenant] == nil {
                batch.rules[event.tenant] = try SQLiteStore.rules(s, tenant: event.tenant)
            }
            let device = Device(tenant: event.tenant, device: event.device)
            if batch.tokens[device] == nil {
                batch.settings[device] = try SQLiteStore.settings(s, tenant: event.tenant, device: event.device)
                batch.tokens[device] = try SQLiteStore.tokens(s, tenant: event.tenant, device: event.device)
            }
        }
        return batch
    }

    /// Plans every event in queue order. An event's cap sees the notifications planned for the
    /// same device and region earlier in the batch.
    func plan(now: Date) -> PlannedWrites {
        let t = now.timeIntervalSince1970
        var writes = PlannedWrites()
        var caps: [CapKey: Double] = [:]
        for queued in events {
            var write = PlannedWrites.Event(outboxID: queued.outboxID)
            defer { writes.events.append(write) }
            guard let body = queued.body, let event = OutboxEvent(Self.json(body)) else { continue }
            let device = Device(tenant: queued.tenant, device: queued.device)
            let key = CapKey(tenant: queued.tenant, device: queued.device, region: event.region)
            let last = caps[key] ?? queued.notifiedAt
            let plan = NotificationPlanner.plan(
                event: event, rules: rules[queued.tenant] ?? [],
                region: RegionFacts(id: event.region, feature: queued.feature.map(Self.json)),
                settings: settings[device] ?? DeviceNotificationSettings(), tokens: tokens[device] ?? [],
                lastNotified: last.map { Date(timeIntervalSince1970: $0) }, now: now)
            if !plan.notifications.isEmpty { write.capCheck = PlannedWrites.CapCheck(key: key, notifiedAt: last) }
            write.notifications = plan.notifications.map {
                SQLiteStore.notificationRow(tenant: queued.tenant, device: queued.device, event: event, $0, now: t)
            }
            if let noted = plan.capNotedAt?.timeIntervalSince1970 {
                caps[key] = max(noted, last ?? noted)
                write.cap = [.text(key.tenant), .text(key.device), .text(key.region), .float(noted)]
            }
        }
        return writes
    }

    /// Stored JSON text; `.null` for text this server could not have written.
    private static func json(_ text: String) -> ServerJSON {
        (try? JSONValue(parsing: Array(text.utf8))) ?? .null
    }

    struct CapKey: Hashable, Sendable {
        var tenant: String
        var device: String
        var region: String
    }
}

/// What planning a batch writes: per queued event, in queue order, its notifications' rows and
/// its cap time.
struct PlannedWrites: Sendable {
    struct Event: Sendable {
        var outboxID: Int
        var notifications: [[SQLiteData]] = []
        var cap: [SQLiteData]? = nil
        /// The cap the plan read, for an event with notifications: the store's value before
        /// this event, with this batch's earlier events written.
        var capCheck: CapCheck? = nil
    }

    /// A cap as an event's plan read it.
    struct CapCheck: Sendable {
        var key: QueuedEvents.CapKey
        var notifiedAt: Double?
    }

    var events: [Event] = []

    /// Writes every event's plan (``apply(_:event:)``) in the caller's transaction.
    func apply(_ s: SQLiteSession) throws {
        for i in events.indices { try apply(s, event: i) }
    }

    /// Marks event `i` planned and, when no planner had yet and it is still queued, writes its
    /// plan; throws ``PlanningConflict`` when the cap its plan read has moved since, other than
    /// by this batch's earlier events (whose writes leave the cap exactly as the plan assumed).
    func apply(_ s: SQLiteSession, event i: Int) throws {
        let event = events[i]
        if let check = event.capCheck {
            let now = try s.query(
                "SELECT notified_at FROM ledger.notification_caps WHERE tenant = ? AND device = ? AND region = ?",
                [.text(check.key.tenant), .text(check.key.device), .text(check.key.region)]
            ).first?.column("notified_at")?.double
            guard now == check.notifiedAt else { throw PlanningConflict() }
        }
        // Off the queue and no longer in `planned_events`: planned, and settled since.
        let queued = try s.query(
            "SELECT 1 AS x FROM notification_queue WHERE outbox_id = ?", [.integer(event.outboxID)])
        guard !queued.isEmpty else { return }
        let taken = try s.query(
            "INSERT INTO ledger.planned_events (outbox_id) VALUES (?) ON CONFLICT DO NOTHING RETURNING outbox_id",
            [.integer(event.outboxID)])
        guard !taken.isEmpty else { return }
        for row in event.notifications {
            try s.query(
                """
                INSERT INTO ledger.notifications (tenant, device, event_id, rule_id, token, service, service_name,
                  environment, message_id, content, state, reason, next_attempt_at, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id, token) DO NOTHING
                """, row)
        }
        if let cap = event.cap {
            try s.query(
                """
                INSERT INTO ledger.notification_caps (tenant, device, region, notified_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (tenant, device, region) DO UPDATE SET notified_at = excluded.notified_at
                  WHERE excluded.notified_at > notification_caps.notified_at
                """, cap)
        }
    }
}

extension SQLiteStore {
    static func notificationRow(
        tenant: String, device: String, event: OutboxEvent, _ n: PlannedNotification, now t: Double
    ) -> [SQLiteData] {
        let (service, name, environment) = NotificationColumns.service(n.message.destination.service)
        let (state, reason, at): (String, String?, Double) =
            switch n.state {
            case .pending(let at): ("pending", nil, at.timeIntervalSince1970)
            case .dropped(let why): ("dropped", why, t)
            }
        return [
            .text(tenant), .text(device), .text(event.id), .text(n.ruleID), .text(n.message.destination.token),
            .text(service), .text(name), environment.map { .text($0) } ?? .null,
            .text(n.message.id.uuidString.lowercased()), text(n.storedContent), .text(state),
            reason.map { .text($0) } ?? .null, .float(at), .float(t),
        ]
    }
}
