import Foundation

/// The columns of a stored notification, read and written the same way by both stores.
enum NotificationColumns {
    /// A destination's service as the columns `service`, `service_name`, `environment`.
    static func service(_ service: PushDestination.Service) -> (String, String, String?) {
        switch service {
        case .apns(let topic, let environment): ("apns", topic, environment.rawValue)
        case .fcm(let project): ("fcm", project, nil)
        }
    }

    /// A due notification from its columns; `nil` for a row this server could not have written.
    static func due(
        id: Int64, tenant: String, device: String, token: String, service: String, name: String,
        environment: String?, messageID: String, content: ServerJSON, attempts: Int, settings: ServerJSON?
    ) -> DueNotification? {
        guard
            let t = PushToken(token: token, service: service, name: name, environment: environment, registeredAt: 0),
            let message = PushMessage(destination: t.destination, id: messageID, content: content)
        else { return nil }
        var due = DueNotification(id: id, tenant: tenant, device: device, attempts: attempts, message: message)
        // Written before rules' actions were kept: the default, hold.
        if case .string(let action)? = content["quietHours"],
            let quiet = NotificationRule.QuietHoursAction(rawValue: action)
        {
            due.quietHours = quiet
        }
        due.settings = DeviceNotificationSettings(stored: settings)
        return due
    }

    /// One entry of the device's delivery log (`GET /v1/devices/{id}/notifications`).
    static func logEntry(
        id: Int64, eventID: String, ruleID: String, token: String, service: String, messageID: String,
        content: ServerJSON, state: String, reason: String?, attempts: Int, nextAttemptAt: Double,
        createdAt: Double, sentAt: Double?
    ) -> ServerJSON {
        var o: [String: ServerJSON] = [
            "id": .string(String(id)), "eventId": .string(eventID), "rule": .string(ruleID),
            "token": .string(token), "service": .string(service), "messageId": .string(messageID),
            "state": .string(state), "attempts": .number(Double(attempts)),
            "createdAt": .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: createdAt))),
        ]
        for key in ["kind", "title", "body", "collapseId"] { if let v = content[key], v != .null { o[key] = v } }
        if let reason { o["reason"] = .string(reason) }
        if let sentAt { o["sentAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: sentAt))) }
        if state == "pending" {
            o["nextAttemptAt"] = .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: nextAttemptAt)))
        }
        return .object(o)
    }
}
