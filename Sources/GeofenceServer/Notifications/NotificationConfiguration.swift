import AsyncHTTPClient
import Foundation
import Logging

/// The push services' credentials and the notification worker's schedule
/// (``ServerConfiguration/notifications``).
///
/// With no credentials for a service, rules are still stored and events still planned; each
/// notification for that service is logged `unconfigured` instead of sent, so the log shows
/// what would have gone out.
public struct NotificationConfiguration: Sendable, Hashable {
    /// Token authentication with APNs: the team's signing key (a `.p8` file from the developer
    /// account) and its ids.
    public struct APNsCredentials: Sendable, Hashable {
        public var teamID: String
        public var keyID: String
        /// Path of the `.p8` private key file.
        public var privateKeyPath: String
        /// `nil`: each token goes to the environment it was registered for (the usual case: one
        /// key serves both). Set: only tokens of that environment are sent; the others are
        /// logged `unconfigured`.
        public var environment: PushDestination.APNsEnvironment?

        public init(
            teamID: String, keyID: String, privateKeyPath: String,
            environment: PushDestination.APNsEnvironment? = nil
        ) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyPath = privateKeyPath
            self.environment = environment
        }
    }

    /// FCM HTTP v1: a Google service account's JSON key file (it names the project).
    public struct FCMCredentials: Sendable, Hashable {
        public var serviceAccountPath: String
        public init(serviceAccountPath: String) { self.serviceAccountPath = serviceAccountPath }
    }

    public var apns: APNsCredentials? = nil
    public var fcm: FCMCredentials? = nil
    /// How often the worker looks for queued events and due notifications.
    public var pollInterval: Duration = .milliseconds(200)
    /// Back-off after a `retry` answer without `Retry-After` (with one, the later of the two);
    /// after `maxAttempts` sends the notification is logged `failed`. 10 attempts over about
    /// 17 minutes: a greeting an hour late is no longer a greeting.
    public var retry = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600), maxAttempts: 10)
    /// The longest `Retry-After` honoured, in seconds (a service asking for more is asked again
    /// after this).
    public var maximumRetryAfterSeconds: Double = 3_600

    public init() {}
}

/// The senders of the configured push services (`nil`: that service is not configured).
public struct PushSenders: Sendable {
    public var apns: (any PushSender)?
    public var fcm: (any PushSender)?
    /// The APNs environment the credentials are limited to, if any.
    public var apnsEnvironment: PushDestination.APNsEnvironment?

    public init(
        apns: (any PushSender)? = nil, fcm: (any PushSender)? = nil,
        apnsEnvironment: PushDestination.APNsEnvironment? = nil
    ) {
        self.apns = apns
        self.fcm = fcm
        self.apnsEnvironment = apnsEnvironment
    }

    /// No service configured: every notification is logged `unconfigured`.
    public static let none = PushSenders()

    /// The sender for `destination`, or why there is none.
    func sender(for destination: PushDestination) -> Result<any PushSender, Unconfigured> {
        switch destination.service {
        case .apns(_, let environment):
            guard let apns else { return .failure(Unconfigured(reason: "no APNs credentials are configured")) }
            if let only = apnsEnvironment, only != environment {
                return .failure(Unconfigured(reason: "the APNs credentials are limited to \(only.rawValue)"))
            }
            return .success(apns)
        case .fcm:
            guard let fcm else { return .failure(Unconfigured(reason: "no FCM credentials are configured")) }
            return .success(fcm)
        }
    }

    struct Unconfigured: Error {
        var reason: String
    }
}

extension PushSenders {
    /// The APNs and FCM senders made from `configuration`'s credentials. Credentials that cannot
    /// be read leave that service unconfigured (each of its notifications is logged
    /// `unconfigured`), with an error in the server's log naming the file and the problem.
    static func make(_ configuration: NotificationConfiguration, logger: Logger) -> PushSenders {
        var senders = PushSenders(apnsEnvironment: configuration.apns?.environment)
        if let apns = configuration.apns {
            do {
                let pem = try String(contentsOfFile: apns.privateKeyPath, encoding: .utf8)
                let credentials = try APNsCredentials(keyID: apns.keyID, teamID: apns.teamID, p8: pem)
                senders.apns = APNsSender(credentials: credentials, client: .shared)
            } catch {
                logger.error("APNs is unconfigured: the key \(apns.privateKeyPath) cannot be used: \(error)")
            }
        }
        if let fcm = configuration.fcm {
            do {
                let json = try Data(contentsOf: URL(fileURLWithPath: fcm.serviceAccountPath))
                senders.fcm = FCMSender(serviceAccount: try FCMServiceAccount(json: json), client: .shared)
            } catch {
                logger.error(
                    "FCM is unconfigured: the service account \(fcm.serviceAccountPath) cannot be used: \(error)")
            }
        }
        return senders
    }
}

extension NotificationConfiguration {
    /// Reads the configuration file's `notifications` object over these values: `apns`
    /// {`teamID`, `keyID`, `privateKeyPath`, `environment`}, `fcm` {`serviceAccountPath`},
    /// `pollIntervalMilliseconds`; a ``Problem`` naming the field otherwise.
    mutating func apply(_ value: ServerJSON) throws(Problem) {
        let o = try JSONObjectReader(value, path: "notifications")
        if o.has("apns") {
            let a = try JSONObjectReader(o.fields["apns"]!, path: "notifications.apns")
            var environment: PushDestination.APNsEnvironment? = nil
            if let e = try a.optionalString("environment") {
                guard let parsed = PushDestination.APNsEnvironment(rawValue: e) else {
                    throw Problem.badRequest(
                        field: a.name("environment"), detail: "\(a.name("environment")) must be sandbox or production")
                }
                environment = parsed
            }
            apns = APNsCredentials(
                teamID: try a.string("teamID"), keyID: try a.string("keyID"),
                privateKeyPath: try a.string("privateKeyPath"), environment: environment)
        }
        if o.has("fcm") {
            let f = try JSONObjectReader(o.fields["fcm"]!, path: "notifications.fcm")
            fcm = FCMCredentials(serviceAccountPath: try f.string("serviceAccountPath"))
        }
        if let ms = try o.optionalNumber("pollIntervalMilliseconds") {
            guard ms.isFinite, (1...60_000).contains(ms) else {
                throw Problem.badRequest(
                    field: o.name("pollIntervalMilliseconds"),
                    detail: "\(o.name("pollIntervalMilliseconds")) must be between 1 and 60000")
            }
            pollInterval = .milliseconds(Int64(ms))
        }
    }
}
