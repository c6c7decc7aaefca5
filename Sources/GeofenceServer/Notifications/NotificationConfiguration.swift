import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import NIOSSL

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
        /// The base URL requests go to for both environments, `https://host:port` (a relay in
        /// front of APNs, or a test's stand-in); `nil`: Apple's servers.
        public var endpoint: String?

        public init(
            teamID: String, keyID: String, privateKeyPath: String,
            environment: PushDestination.APNsEnvironment? = nil, endpoint: String? = nil
        ) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyPath = privateKeyPath
            self.environment = environment
            self.endpoint = endpoint
        }
    }

    /// FCM HTTP v1: a Google service account's JSON key file (it names the project).
    public struct FCMCredentials: Sendable, Hashable {
        public var serviceAccountPath: String
        public init(serviceAccountPath: String) { self.serviceAccountPath = serviceAccountPath }
    }

    public var apns: APNsCredentials? = nil
    public var fcm: FCMCredentials? = nil
    /// A PEM file of certificates the push clients trust besides the system's (a relay's or a
    /// test stand-in's own authority); `nil`: the system's only.
    public var additionalTrustRootsPath: String? = nil
    /// How often the worker looks for queued events and due notifications.
    public var pollInterval: Duration = .milliseconds(200)
    /// The most notifications one worker has at the push services at a time. APNs and FCM
    /// answer each request in tens of milliseconds over one HTTP/2 connection; sent one after
    /// another, a worker would manage a few dozen a second. 64 keeps well under the streams APNs
    /// allows on one connection (its SETTINGS say 1,000 and more) and under AsyncHTTPClient's
    /// default of 100 for a server that says nothing.
    public var sendsInFlight = 64
    /// Back-off after a `retry` answer without `Retry-After` (with one, the later of the two);
    /// after `maxAttempts` sends the notification is logged `failed`. 10 attempts over about
    /// 17 minutes: a greeting an hour late is no longer a greeting.
    public var retry = RetryPolicy(baseDelay: .seconds(2), maxDelay: .seconds(600), maxAttempts: 10)
    /// How long the last round, on graceful shutdown, may take: what it has not sent by then is
    /// sent by the next start. 5 s: time for thousands of pushes, and well inside the grace
    /// period of a container's stop (10 s in Docker, 30 s in Kubernetes, then SIGKILL).
    public var lastRoundLimit: Duration = .seconds(5)
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
    /// `unconfigured`), with an error in the server's log naming the file and the problem;
    /// `geofence serve` checks them first (``checkCredentials(_:)``) and refuses to start.
    static func make(
        _ configuration: NotificationConfiguration, sharedTokens: (any ProviderTokenStore)? = nil, logger: Logger
    ) -> PushSenders {
        var senders = PushSenders(apnsEnvironment: configuration.apns?.environment)
        guard configuration.apns != nil || configuration.fcm != nil else { return senders }
        let client = configuration.additionalTrustRootsPath.map(PushClient.trusting) ?? PushClient.shared
        if let apns = configuration.apns {
            do {
                let endpoints = apns.endpoint.map { APNsSender.Endpoints(production: $0, sandbox: $0) } ?? .apple
                senders.apns = APNsSender(
                    credentials: try signingKey(apns), client: client, endpoints: endpoints, sharedTokens: sharedTokens)
            } catch {
                logger.error("APNs is unconfigured: \(error.reason)")
            }
        }
        if let fcm = configuration.fcm {
            do {
                senders.fcm = FCMSender(serviceAccount: try serviceAccount(fcm), client: client)
            } catch {
                logger.error("FCM is unconfigured: \(error.reason)")
            }
        }
        return senders
    }

    /// Reads every credential file `configuration` names; the first that cannot be used is a
    /// ``ConfigurationError`` naming its key and file.
    static func checkCredentials(_ configuration: NotificationConfiguration) throws(ConfigurationError) {
        if let apns = configuration.apns { _ = try signingKey(apns) }
        if let fcm = configuration.fcm { _ = try serviceAccount(fcm) }
        if let roots = configuration.additionalTrustRootsPath {
            let certificates = try? NIOSSLCertificate.fromPEMFile(roots)
            guard let certificates, !certificates.isEmpty else {
                throw ConfigurationError(
                    key: "notifications.additionalTrustRootsPath",
                    reason: "\(roots) cannot be used: it must be a readable PEM file of certificates")
            }
        }
    }

    private static func signingKey(
        _ apns: NotificationConfiguration.APNsCredentials
    ) throws(ConfigurationError) -> APNsCredentials {
        let key = "notifications.apns.privateKeyPath"
        let pem: String
        do { pem = try String(contentsOfFile: apns.privateKeyPath, encoding: .utf8) } catch {
            throw ConfigurationError(key: key, reason: "the APNs key \(apns.privateKeyPath) cannot be read")
        }
        do { return try APNsCredentials(keyID: apns.keyID, teamID: apns.teamID, p8: pem) } catch {
            throw ConfigurationError(key: key, reason: "\(apns.privateKeyPath): \(error)")
        }
    }

    private static func serviceAccount(
        _ fcm: NotificationConfiguration.FCMCredentials
    ) throws(ConfigurationError) -> FCMServiceAccount {
        let key = "notifications.fcm.serviceAccountPath"
        let json: Data
        do { json = try Data(contentsOf: URL(fileURLWithPath: fcm.serviceAccountPath)) } catch {
            throw ConfigurationError(key: key, reason: "the service account \(fcm.serviceAccountPath) cannot be read")
        }
        do { return try FCMServiceAccount(json: json) } catch {
            throw ConfigurationError(key: key, reason: "\(fcm.serviceAccountPath): \(error)")
        }
    }
}

extension NotificationConfiguration {
    /// Reads the configuration file's `notifications` object over these values: `apns`
    /// {`teamID`, `keyID`, `privateKeyPath`, `environment`, `endpoint`}, `fcm` {`serviceAccountPath`},
    /// `pollIntervalMilliseconds`, `sendsInFlight`, `additionalTrustRootsPath`; a ``Problem`` naming the field otherwise.
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
            let endpoint = try a.optionalString("endpoint")
            if let endpoint, !Self.isHTTPSBase(endpoint) {
                throw Problem.badRequest(
                    field: a.name("endpoint"),
                    detail: "\(a.name("endpoint")) must be an https:// URL with a host and no path")
            }
            apns = APNsCredentials(
                teamID: try a.string("teamID"), keyID: try a.string("keyID"),
                privateKeyPath: try a.string("privateKeyPath"), environment: environment, endpoint: endpoint)
        }
        if o.has("fcm") {
            let f = try JSONObjectReader(o.fields["fcm"]!, path: "notifications.fcm")
            fcm = FCMCredentials(serviceAccountPath: try f.string("serviceAccountPath"))
        }
        additionalTrustRootsPath = try o.optionalString("additionalTrustRootsPath") ?? additionalTrustRootsPath
        if let n = try o.optionalNumber("sendsInFlight") {
            guard n.isFinite, n == n.rounded(), (1...1_000).contains(n) else {
                throw Problem.badRequest(
                    field: o.name("sendsInFlight"),
                    detail: "\(o.name("sendsInFlight")) must be an integer from 1 to 1000")
            }
            sendsInFlight = Int(n)
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

    /// `https://host[:port]`: a base the senders append their paths to.
    static func isHTTPSBase(_ text: String) -> Bool {
        guard let url = URL(string: text), url.scheme == "https", let host = url.host, !host.isEmpty else {
            return false
        }
        return url.path.isEmpty && url.query == nil && url.fragment == nil && url.user == nil
    }
}

/// Where pushes go out: their own event loop thread, below the API's in priority, so that a
/// burst's TLS and HTTP/2 work does not queue on the loops that serve the API, ahead of the
/// phones' requests.
enum PushClient {
    /// One thread, at background priority (``BackgroundExecutor``): HTTP/2 multiplexes every send
    /// to a service on one connection.
    static let eventLoopGroup: MultiThreadedEventLoopGroup = {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        group.next().execute { BackgroundExecutor.lowerCurrentThreadPriority() }
        return group
    }()

    /// The client for the services' own endpoints, made on first use and never shut down (as
    /// `HTTPClient.shared` is).
    static let shared = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup))

    /// The client that also trusts the certificates in `roots` (a relay's or a stand-in's
    /// authority): one per file, kept for the process's life like ``shared``. A client owned by
    /// one server would have to be shut down by it, and a server that refuses to start (bad
    /// credentials) never runs the code that would.
    static func trusting(_ roots: String) -> HTTPClient {
        clients.withLockedValue { clients in
            if let client = clients[roots] { return client }
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(roots)]
            let client = HTTPClient(
                eventLoopGroupProvider: .shared(eventLoopGroup), configuration: .init(tlsConfiguration: tls))
            clients[roots] = client
            return client
        }
    }

    private static let clients = NIOLockedValueBox<[String: HTTPClient]>([:])
}
