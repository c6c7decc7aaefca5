import Foundation

/// What notifications keep in the server's store: push tokens, rules, device settings, the
/// queue the outbox feeds and the delivery log. Both ``SQLiteStore`` and ``PostgresStore``
/// conform (`SQLiteStore+Notifications`, `PostgresStore+Notifications`).
///
/// The rules an implementation keeps:
/// - an outbox row of a device with a push token, in a tenant with a rule, enters the
///   notification queue **in the transaction that inserts it** (a trigger on the outbox), so an
///   event committed is an event considered, whatever crashes after;
/// - ``planNotifications(now:limit:)`` turns queued events into notifications
///   (``NotificationPlanner``) and removes them from the queue in one transaction; one
///   notification per event and token (a unique key), one planner per device at a time;
/// - ``dueNotifications(now:limit:)`` leases what it hands out for ``notificationLeaseSeconds``,
///   so no other worker sends it meanwhile; a worker that dies mid-send leaves it to be sent
///   again, with the same ids, when the lease ends.
public protocol NotificationStore: Sendable {
    /// Registers (or registers again, with a new time) a device's push token; `false` when the
    /// device already has ``PushToken/maximumPerDevice`` other tokens (nothing written).
    func putPushToken(tenant: String, device: String, _ token: PushToken) async throws -> Bool
    /// Removes a device's token; whether it existed.
    func deletePushToken(tenant: String, device: String, token: String) async throws -> Bool
    /// The device's tokens, oldest registration first.
    func pushTokens(tenant: String, device: String) async throws -> [PushToken]

    /// Stores a rule; `false` when a rule with its id exists or the tenant has
    /// ``NotificationRule/maximumPerTenant`` rules (nothing written).
    func addNotificationRule(tenant: String, _ rule: NotificationRule, now: Date) async throws -> Bool
    /// The tenant's rules in id order.
    func notificationRules(tenant: String) async throws -> [NotificationRule]
    /// Removes a rule; whether it existed.
    func deleteNotificationRule(tenant: String, id: String) async throws -> Bool

    /// The device's settings (the defaults when none are stored).
    func notificationSettings(tenant: String, device: String) async throws -> DeviceNotificationSettings
    /// Stores (replaces) the device's settings.
    func putNotificationSettings(
        tenant: String, device: String, _ settings: DeviceNotificationSettings, now: Date
    ) async throws

    /// Plans at most `limit` queued events (oldest first); returns how many were taken from the
    /// queue.
    func planNotifications(now: Date, limit: Int) async throws -> Int
    /// Pending notifications due at `now`, oldest first, each leased.
    func dueNotifications(now: Date, limit: Int) async throws -> [DueNotification]
    /// Records what sends came to (and, for an invalid token, removes the token unless it was
    /// registered again after the service's time). Each record stands alone: a store may
    /// commit them in several transactions, and after a failure those already committed stay.
    /// A notification no longer pending is left as it is.
    func recordNotifications(_ outcomes: [RecordedOutcome], now: Date) async throws
    /// The device's notifications, newest last, after log id `after`.
    func notificationLog(tenant: String, device: String, after: Int64, limit: Int) async throws -> [ServerJSON]
    /// Deletes, among the `limit` oldest entries of the log (every tenant's), those created
    /// before `before` and no longer pending; returns how many. Looking at `limit` entries at
    /// most, a call's work is bounded however long the log.
    func pruneNotifications(before: Date, limit: Int) async throws -> Int
}

/// How long a handed-out notification stays invisible to other workers, in seconds: longer than
/// any send (the senders time out within 30 s).
public let notificationLeaseSeconds: Double = 60

/// A notification the worker should send now.
public struct DueNotification: Sendable, Hashable {
    /// The log id.
    public var id: Int64
    public var tenant: String
    public var device: String
    /// Sends made before this one.
    public var attempts: Int
    public var message: PushMessage
    /// What its rule does in quiet hours.
    public var quietHours: NotificationRule.QuietHoursAction = .hold
    /// The device's settings when the notification was handed out.
    public var settings = DeviceNotificationSettings()
}

/// What one send of the notification with log id `id` came to.
public struct RecordedOutcome: Sendable, Hashable {
    public var id: Int64
    public var outcome: NotificationOutcome

    public init(id: Int64, outcome: NotificationOutcome) {
        self.id = id
        self.outcome = outcome
    }
}

/// What one send came to, as the log records it.
public enum NotificationOutcome: Sendable, Hashable {
    /// Accepted by the service (its id, if it gave one).
    case delivered(serviceID: String?)
    /// Try again at `nextAttempt`.
    case retry(reason: String, nextAttempt: Date)
    /// Not sent (quiet hours): due again at `until`, no attempt counted.
    case held(until: Date)
    /// The token is invalid since `invalidSince` (`nil`: for good): the log says so, and the token
    /// goes unless it was registered after that time.
    case tokenInvalid(reason: String, invalidSince: Date?)
    /// Ended without delivery: `state` is `refused`, `failed` (retries used up),
    /// `unconfigured` (no sender for the service) or `dropped` (the check before sending).
    case ended(state: String, reason: String)
}

extension PushMessage {
    /// The stored form of the message's content (the destination and ids have columns).
    var storedContent: ServerJSON {
        var o: [String: ServerJSON] = [
            "kind": .string(kind.rawValue), "data": .object(data.mapValues { .string($0) }),
        ]
        if let title { o["title"] = .string(title) }
        if let body { o["body"] = .string(body) }
        if let collapseID { o["collapseId"] = .string(collapseID) }
        if let expiresAt { o["expiresAt"] = .number(expiresAt.timeIntervalSince1970) }
        return .object(o)
    }

    /// Rebuilds a stored message; `nil` for a row this server could not have written.
    init?(destination: PushDestination, id: String, content: ServerJSON) {
        guard let uuid = UUID(uuidString: id), case .string(let k)? = content["kind"],
            let kind = Kind(rawValue: k)
        else { return nil }
        var data: [String: String] = [:]
        if case .object(let o)? = content["data"] {
            for case (let key, .string(let v)) in o { data[key] = v }
        }
        func text(_ key: String) -> String? { if case .string(let s)? = content[key] { s } else { nil } }
        var expires: Date? = nil
        if case .number(let t)? = content["expiresAt"] { expires = Date(timeIntervalSince1970: t) }
        self.init(
            destination: destination, id: uuid, collapseID: text("collapseId"), kind: kind, title: text("title"),
            body: text("body"), data: data, expiresAt: expires)
    }
}
