import Foundation

/// Where a remote notification goes: one device token at one push service.
public struct PushDestination: Sendable, Hashable {
    /// The push service and what it needs beside the token.
    public enum Service: Sendable, Hashable {
        /// Apple Push Notification service: the app's bundle id (`apns-topic`) and the
        /// environment the token was issued for.
        case apns(topic: String, environment: APNsEnvironment)
        /// Firebase Cloud Messaging HTTP v1, in this Firebase project.
        case fcm(projectID: String)
    }

    /// APNs issues a token for the development (sandbox) or the production environment; a
    /// token sent to the other one is refused (`BadDeviceToken`).
    public enum APNsEnvironment: String, Sendable, Hashable, Codable {
        case sandbox
        case production
    }

    public var service: Service
    /// The device token (APNs: hexadecimal) or registration token (FCM), as the phone got it.
    public var token: String

    public init(service: Service, token: String) {
        self.service = service
        self.token = token
    }
}

/// One notification to one destination, as the outbox holds it.
public struct PushMessage: Sendable, Hashable {
    /// An alert the person sees, or a background (content-available) wake-up of the app.
    public enum Kind: String, Sendable, Hashable, Codable {
        case alert
        case background
    }

    public var destination: PushDestination
    /// Derived from the event and the destination, so a re-send after a crash carries the same
    /// id (`apns-id`) and replaces rather than duplicates.
    public var id: UUID
    /// Notifications with the same collapse id replace each other on the device (`apns-collapse-id`,
    /// FCM's `collapse_key` / `tag`); at most 64 bytes.
    public var collapseID: String?
    public var kind: Kind
    public var title: String?
    public var body: String?
    /// Custom keys beside the service's own (the event, region and device ids).
    public var data: [String: String]
    /// The service stops trying to deliver after this time (`apns-expiration`, FCM `ttl`).
    public var expiresAt: Date?

    public init(
        destination: PushDestination, id: UUID, collapseID: String?, kind: Kind, title: String?, body: String?,
        data: [String: String], expiresAt: Date?
    ) {
        self.destination = destination
        self.id = id
        self.collapseID = collapseID
        self.kind = kind
        self.title = title
        self.body = body
        self.data = data
        self.expiresAt = expiresAt
    }
}

/// What a push service answered for one message.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted for delivery; the service's own id where it gives one (`apns-id`, FCM's message name).
    case delivered(serviceID: String?)
    /// The token is no longer valid (APNs `410 Unregistered` with the time Apple last knew it
    /// valid; `400 BadDeviceToken`; FCM `UNREGISTERED`): remove it unless it was registered again
    /// after `invalidSince`.
    case tokenInvalid(reason: String, invalidSince: Date?)
    /// Try again later: 429 or 5xx, after `retryAfter` when the service said so (`Retry-After`).
    case retry(reason: String, retryAfter: Duration?)
    /// Refused for good (a malformed request, a wrong topic, a payload too large): retrying the
    /// same message cannot succeed.
    case refused(reason: String)
}

/// Sends one message to its push service. Implementations: APNs (HTTP/2, token authentication)
/// and FCM HTTP v1; tests use them against stand-ins as strict as the services.
public protocol PushSender: Sendable {
    func send(_ message: PushMessage) async -> PushOutcome
}

/// Why a message cannot be turned into what its push service takes; the same message fails the
/// same way every time, so rules check their messages when they are made.
public enum PushPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The encoded payload is over the service's limit (4096 bytes for APNs and FCM).
    case tooLarge(bytes: Int, limit: Int)
    /// A custom key collides with one the service owns (`aps` for APNs).
    case reservedKey(String)
    /// An alert with neither a title nor a body.
    case emptyAlert

    public var description: String {
        switch self {
        case .tooLarge(let bytes, let limit): "the payload is \(bytes) bytes, over the push service's \(limit)"
        case .reservedKey(let key): "the custom key \"\(key)\" is reserved by the push service"
        case .emptyAlert: "an alert needs a title or a body"
        }
    }
}

extension PushOutcome {
    /// A `Retry-After` header (RFC 9110 §10.2.3: delay seconds or an HTTP date) as a wait from
    /// `now`; nil when absent or unreadable. A wait over a day (or an absurd one) is taken as a
    /// day, so one bad header cannot park a message for good.
    static func retryAfter(_ header: String?, now: Date) -> Duration? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        let seconds: Double
        if let delay = Int64(header) {
            seconds = Double(delay)
        } else if let date = httpDate(header) {
            seconds = date.timeIntervalSince(now)
        } else {
            return nil
        }
        return .seconds(Int64(max(0, min(seconds, 86_400))))
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
