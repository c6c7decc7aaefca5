import Foundation
import Geofencing

/// An event as the notification planner reads it from the outbox.
struct OutboxEvent: Sendable, Hashable {
    var id: String
    var kind: TransitionEvent.Kind
    var device: String
    var region: String
    var time: Date

    /// From an outbox row's JSON (``StoredEvent/json``); `nil` for a row that is not an event.
    init?(_ json: ServerJSON) {
        guard case .string(let id)? = json["id"], case .string(let k)? = json["event"],
            let kind = TransitionEvent.Kind(rawValue: k), case .string(let device)? = json["device"],
            case .string(let region)? = json["region"], case .string(let time)? = json["time"],
            let t = FixJSON.parseRFC3339(time)
        else { return nil }
        self.init(id: id, kind: kind, device: device, region: region, time: t)
    }

    init(id: String, kind: TransitionEvent.Kind, device: String, region: String, time: Date) {
        self.id = id
        self.kind = kind
        self.device = device
        self.region = region
        self.time = time
    }
}

/// One notification the planner decided on, for one token.
struct PlannedNotification: Sendable, Hashable {
    enum State: Sendable, Hashable {
        /// To be sent at this time (now, or when quiet hours end).
        case pending(at: Date)
        /// Not sent, for this reason (`opted-out`, `cap`, `quiet-hours`): kept in the log.
        case dropped(String)
    }
    var ruleID: String
    var message: PushMessage
    var state: State
    /// What the rule does in quiet hours, kept with the notification for the check at send
    /// time (``NotificationPlanner/checkBeforeSending(_:now:)``).
    var quietHours: NotificationRule.QuietHoursAction = .hold

    /// The stored form of the message's content, with the rule's quiet-hours action.
    var storedContent: ServerJSON {
        guard case .object(var o) = message.storedContent else { return message.storedContent }
        o["quietHours"] = .string(quietHours.rawValue)
        return .object(o)
    }
}

/// What to write for one event: the notifications, and the time to remember for the cap of the
/// device and region (when one is sent).
struct NotificationPlan: Sendable, Hashable {
    var notifications: [PlannedNotification] = []
    var capNotedAt: Date? = nil
}

/// Decides what one event sends: the first matching rule, the device's opt-out, the cap, the
/// quiet hours. A pure function of its inputs (the store gathers them and writes the plan), so
/// every rule is tested without a server or a clock.
enum NotificationPlanner {
    /// How long after it is due the push service keeps trying to reach the phone
    /// (`apns-expiration`, FCM `ttl`): an hour. A phone switched off at the shop's door would
    /// otherwise get the greeting when it comes back on, days later, far from the region; the
    /// server's own retries end within about 17 minutes.
    static let lifetime: TimeInterval = 3_600

    /// - Parameters:
    ///   - rules: the tenant's rules, in id order.
    ///   - lastNotified: the event time of the last notification sent to the device for this
    ///     region, if any (the cap's memory).
    ///   - now: the planning time (quiet hours are about when the phone rings).
    static func plan(
        event: OutboxEvent, rules: [NotificationRule], region: RegionFacts, settings: DeviceNotificationSettings,
        tokens: [PushToken], lastNotified: Date?, now: Date
    ) -> NotificationPlan {
        guard !tokens.isEmpty, let rule = rules.first(where: { $0.matches(kind: event.kind, region: region) })
        else { return NotificationPlan() }
        let state: PlannedNotification.State
        var noted: Date? = nil
        if settings.optOut {
            state = .dropped("opted-out")
        } else if rule.capHours > 0, let last = lastNotified,
            abs(event.time.timeIntervalSince(last)) < rule.capHours * 3_600
        {
            state = .dropped("cap")
        } else if let end = settings.quietHoursEnd(containing: now) {
            switch rule.quietHours {
            case .hold:
                state = .pending(at: end)
                noted = event.time
            case .drop: state = .dropped("quiet-hours")
            }
        } else {
            state = .pending(at: now)
            noted = event.time
        }
        let values = TemplateValues(
            regionID: region.id, regionName: region.name, regionMetadata: region.metadata, deviceID: event.device,
            eventKind: event.kind.rawValue)
        let title = rule.title?.render(values)
        let body = rule.body?.render(values)
        let data = ["eventId": event.id, "event": event.kind.rawValue, "region": event.region, "device": event.device]
        var expiresAt: Date? = nil
        if case .pending(let due) = state { expiresAt = due.addingTimeInterval(Self.lifetime) }
        let notifications = tokens.map { token in
            PlannedNotification(
                ruleID: rule.id,
                message: PushMessage(
                    destination: token.destination, id: NotificationID.messageID(eventID: event.id, token: token.token),
                    collapseID: NotificationID.collapseID(eventID: event.id), kind: rule.pushType, title: title,
                    body: body, data: data, expiresAt: expiresAt),
                state: state, quietHours: rule.quietHours)
        }
        return NotificationPlan(notifications: notifications, capNotedAt: noted)
    }

    /// What a due notification's send comes to before it is sent, each time, retries
    /// included: settings and time may have changed since it was planned.
    enum SendCheck: Sendable, Hashable {
        case send
        /// Not sent, ended in the log as `dropped` for this reason.
        case drop(String)
        /// Not sent now, and no attempt counted: due again at this time.
        case hold(until: Date)
    }

    /// The rules at send time, in order: a device that opted out since gets nothing
    /// (`opted-out`); a notification past its expiry is not sent (`expired`: a greeting an hour
    /// late is no longer one); in the device's quiet hours the rule's action applies again, so a
    /// retry the service pushed into the night waits for the morning (`hold`) or is dropped
    /// (`quiet-hours`), and a hold that would outlast the expiry is `expired`.
    static func checkBeforeSending(_ due: DueNotification, now: Date) -> SendCheck {
        let settings = due.settings
        if settings.optOut { return .drop("opted-out") }
        let expiresAt = due.message.expiresAt ?? .distantFuture
        if now >= expiresAt { return .drop("expired") }
        guard let end = settings.quietHoursEnd(containing: now) else { return .send }
        switch due.quietHours {
        case .drop: return .drop("quiet-hours")
        case .hold: return end >= expiresAt ? .drop("expired") : .hold(until: end)
        }
    }
}
