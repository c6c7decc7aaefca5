import Foundation

/// A push token a phone registered for one of its devices: where its notifications go.
///
/// Registered with `PUT /v1/devices/{id}/push-tokens/{token}`; the registration time is kept
/// because a token the service reports invalid since an earlier time was registered again
/// since, and must stay (``NotificationDispatcher``).
public struct PushToken: Sendable, Hashable {
    /// The device token (APNs) or registration token (FCM).
    public var token: String
    /// The push service and what it needs beside the token.
    public var service: PushDestination.Service
    /// When the phone last registered the token.
    public var registeredAt: Date

    public init(token: String, service: PushDestination.Service, registeredAt: Date) {
        self.token = token
        self.service = service
        self.registeredAt = registeredAt
    }

    /// Where a message to this token goes.
    public var destination: PushDestination { PushDestination(service: service, token: token) }

    /// At most this many tokens per device: a phone has one per app install and environment;
    /// more means a client registering a new token at every launch without removing the old.
    public static let maximumPerDevice = 10
    /// APNs device tokens are hexadecimal: 32 bytes today (64 digits), documented as variable
    /// in length, so up to 100 bytes (200 digits) are accepted.
    public static let apnsLengths = 64...200
    /// FCM registration tokens are opaque; today about 160 characters. 4,096 bounds what one
    /// row may hold.
    public static let fcmMaximumLength = 4_096
    /// Bundle ids (`apns-topic`) and Firebase project ids are short; 255 bounds them.
    public static let nameMaximumLength = 255

    /// Why `token` is not a valid token for `service`, or `nil`.
    static func flaw(token: String, service: PushDestination.Service) -> String? {
        switch service {
        case .apns:
            guard apnsLengths.contains(token.utf8.count) else {
                return
                    "an APNs device token has \(apnsLengths.lowerBound) to \(apnsLengths.upperBound) hexadecimal digits"
            }
            guard token.utf8.allSatisfy(\.isHexDigit) else {
                return "an APNs device token is hexadecimal (0-9, a-f)"
            }
            return nil
        case .fcm:
            guard (1...fcmMaximumLength).contains(token.utf8.count) else {
                return "an FCM registration token has 1 to \(fcmMaximumLength) characters"
            }
            // FCM tokens are URL-safe base64 with a `:` separator; nothing else can be one.
            guard token.utf8.allSatisfy({ $0.isTokenCharacter }) else {
                return "an FCM registration token holds only letters, digits and - _ : ."
            }
            return nil
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
    fileprivate var isTokenCharacter: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
            || self == 0x2D || self == 0x5F || self == 0x3A || self == 0x2E
    }
}

extension PushToken {
    /// Reads a registration body (`{"service":"apns","topic":…,"environment":…}` or
    /// `{"service":"fcm","project":…}`), checking `token` against it; 400 naming the field.
    static func parse(token: String, body: ServerJSON, now: Date) throws(Problem) -> PushToken {
        let o = try JSONObjectReader(body, path: "")
        try o.refuseUnknownKeys(["service", "topic", "environment", "project"])
        let service: PushDestination.Service
        switch try o.string("service") {
        case "apns":
            let topic = try name(o, "topic")
            let raw = try o.string("environment")
            guard let environment = PushDestination.APNsEnvironment(rawValue: raw) else {
                throw Problem.badRequest(field: "environment", detail: "environment must be sandbox or production")
            }
            service = .apns(topic: topic, environment: environment)
        case "fcm":
            service = .fcm(projectID: try name(o, "project"))
        default:
            throw Problem.badRequest(field: "service", detail: "service must be apns or fcm")
        }
        if let why = flaw(token: token, service: service) {
            throw Problem.badRequest(field: "token", detail: why)
        }
        // APNs tokens are compared in lower case: the same token in either spelling is one token.
        let canonical = if case .apns = service { token.lowercased() } else { token }
        return PushToken(token: canonical, service: service, registeredAt: now)
    }

    private static func name(_ o: JSONObjectReader, _ key: String) throws(Problem) -> String {
        let s = try o.string(key)
        guard (1...nameMaximumLength).contains(s.utf8.count),
            s.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || "0123456789.-_".unicodeScalars.contains($0) })
        else {
            throw Problem.badRequest(
                field: key, detail: "\(key) has 1 to \(nameMaximumLength) letters, digits, dots, dashes or underscores")
        }
        return s
    }

    /// The public JSON shape.
    var json: ServerJSON {
        var o: [String: ServerJSON] = [
            "token": .string(token), "registeredAt": .string(FixJSON.formatRFC3339(registeredAt)),
        ]
        switch service {
        case .apns(let topic, let environment):
            o["service"] = .string("apns")
            o["topic"] = .string(topic)
            o["environment"] = .string(environment.rawValue)
        case .fcm(let project):
            o["service"] = .string("fcm")
            o["project"] = .string(project)
        }
        return .object(o)
    }

    /// The stored columns: service, topic-or-project, environment (APNs only).
    var storedService: (service: String, name: String, environment: String?) {
        switch service {
        case .apns(let topic, let environment): ("apns", topic, environment.rawValue)
        case .fcm(let project): ("fcm", project, nil)
        }
    }

    /// Rebuilds a stored token; `nil` for a row this server could not have written.
    init?(token: String, service: String, name: String, environment: String?, registeredAt: Double) {
        switch service {
        case "apns":
            guard let e = environment.flatMap(PushDestination.APNsEnvironment.init(rawValue:)) else { return nil }
            self.init(
                token: token, service: .apns(topic: name, environment: e),
                registeredAt: Date(timeIntervalSince1970: registeredAt))
        case "fcm":
            self.init(
                token: token, service: .fcm(projectID: name), registeredAt: Date(timeIntervalSince1970: registeredAt))
        default: return nil
        }
    }
}
