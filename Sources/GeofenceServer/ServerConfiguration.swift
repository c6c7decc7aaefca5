import Foundation
import Geofencing
import RegionPlanner

/// Everything an operator can set, from the command line or a JSON `--config` file
/// (docs/server.md lists the keys). Defaults are safe for a single embedded instance.
///
/// ```swift
/// var config = ServerConfiguration()
/// config.port = 0                               // any free port (tests)
/// config.allowedWebhookHosts = ["127.0.0.1"]
/// ```
public struct ServerConfiguration: Sendable {
    /// Interface to bind (loopback by default; `0.0.0.0` to serve the network).
    public var host: String = "127.0.0.1"
    /// TCP port; 0 picks a free one.
    public var port: Int = 8080
    /// An SQLite file path (created on first start), `:memory:`, or a `postgres://` URL.
    public var database: String = "geofence.sqlite"
    /// How an SQLite store makes commits durable (ignored for PostgreSQL, whose own
    /// `synchronous_commit` decides): `.normal` by default (docs/server.md, "Durability").
    public var sqliteSynchronous: SQLiteSynchronous = .normal
    /// Hosts webhook URLs may point at (exact, case-insensitive). Empty: no webhooks.
    public var allowedWebhookHosts: [String] = []
    /// Largest request body accepted, in bytes (413 beyond).
    public var maxBodyBytes: Int = 4 << 20
    /// Largest fix batch accepted (413 beyond).
    public var maxBatchSize: Int = 10_000
    /// Largest page for list endpoints.
    public var maxPageSize: Int = 1_000
    /// The most events one page of `GET /v1/events/history` examines when it filters by kind or
    /// time (not indexed): such a page may end early, with a `next` to go on from
    /// (docs/server.md, "Event history").
    public var historyScanEvents: Int = 10_000
    /// The most devices one page of `GET /v1/devices?prefix=` examines (no index orders a
    /// prefix's devices by last seen): such a page may end early, with a `next` to go on from.
    public var deviceListScan: Int = 10_000
    /// Bearer token for `/metrics`; when `nil`, any tenant's API key is accepted there.
    public var metricsToken: String? = nil
    /// The hysteresis rule every tenant's engine uses.
    public var policy: HysteresisPolicy = .precise
    /// Webhook retry schedule.
    public var webhookRetry: RetryPolicy = RetryPolicy()
    /// How often the webhook worker looks for due deliveries.
    public var webhookPollInterval: Duration = .milliseconds(200)
    /// How often an idle event stream checks the outbox for new events.
    public var streamPollInterval: Duration = .milliseconds(100)
    /// How often an instance asks the store whether another instance changed a tenant's
    /// regions (then rebuilds that tenant's engine); the longest a region change made elsewhere
    /// takes to reach this instance's `nearby` answers. Only a shared store (PostgreSQL) ever
    /// reports such changes.
    public var regionSyncInterval: Duration = .seconds(1)
    /// The largest search radius of `GET /v1/regions/nearby`, in metres (its default too):
    /// what bounds the work of one query (docs/server.md, "Bounded work").
    public var maxNearbyRadiusMeters: Double = 100_000
    /// How many read queries (`nearby`) of one tenant run at once; more wait, up to
    /// ``requestTimeout``. Keeps one tenant's queries from taking every core.
    public var maxConcurrentQueriesPerTenant: Int = 2
    /// The re-plan sizing of device plans (`GET /v1/devices/{id}/plan`): that of
    /// ``PlanAssumptions``' defaults — Core Location's hysteresis, at most 40 m/s, a fix every
    /// second, fixes of ±100 m or better, single glitches of at most 250 m (docs/planner.md,
    /// "The guarantee and its numbers"). The configuration file's `planAssumptions` sets it.
    public var planSizing = PlanAssumptions().sizing
    /// How long a connection may stay silent — no request in progress, or a request that
    /// stopped arriving — before it is closed (60 s, as nginx's header timeout). A request
    /// being answered is never cut by it.
    public var idleTimeout: Duration = .seconds(60)
    /// Most connections open at once (10,000; lowered to what the open-file limit allows);
    /// more wait in the listen backlog.
    public var maxConnections: Int = 10_000
    /// The most time a request may take (503 problem beyond; the event stream has its own
    /// `timeout`).
    public var requestTimeout: Duration = .seconds(10)
    /// The times a fix may carry, relative to the server's clock (400 outside).
    public var fixTimeWindow = FixTimeWindow()
    /// When each tenant's engine is checkpointed in the store (start-up replays only the
    /// journal after the last snapshot).
    public var snapshots = SnapshotSchedule()
    /// How many engines each tenant's devices are spread over, run in parallel (docs/server.md,
    /// "Every core for one tenant"): by default one per core this process may run on.
    public var engineShards: Int = EngineShards.defaultCount
    /// How long stored fix batches are kept (`nil`: forever). 30 days by default. Only
    /// batches a snapshot covers are deleted, so fixes can outlive this by up to
    /// ``SnapshotSchedule/interval`` (docs/server.md, "Retention").
    public var fixRetention: Duration? = .seconds(30 * 86_400)
    /// How long events are kept once no delivery of theirs is pending (`nil`: forever).
    /// 30 days by default; reading after an older cursor is a 410 problem.
    public var eventRetention: Duration? = .seconds(30 * 86_400)
    /// How often retention deletes what expired (in batches of ``retentionBatch`` rows per
    /// transaction). 60 s by default.
    public var retentionCheckInterval: Duration = .seconds(60)
    /// Most rows of each kind one pruning transaction deletes (5,000: a few milliseconds of
    /// writer time on SQLite, so ingestion never waits long behind it).
    public var retentionBatch: Int = 5_000
    /// Timeout of one webhook request.
    public var webhookTimeout: Duration = .seconds(10)
    /// The dashboard's map tiles: a URL template with `{z}`, `{x}`, `{y}` (256-pixel Web
    /// Mercator tiles, e.g. `https://tiles.example.org/{z}/{x}/{y}.png`). `nil` (the default):
    /// no tiles — the dashboard draws regions on a plain background and needs no internet.
    public var dashboardTileURL: String? = nil
    /// Attribution text shown under the tiles (most tile servers' terms require one).
    public var dashboardTileAttribution: String? = nil
    /// The values of `{s}` in ``dashboardTileURL``, spread over the tiles (`a`, `b`, `c` by
    /// default); each becomes a host the page's Content-Security-Policy allows.
    public var dashboardTileSubdomains: [String] = ["a", "b", "c"]
    /// The tile server's highest zoom (19 by default, OpenStreetMap's); closer in, the map
    /// scales that zoom's tiles.
    public var dashboardTileMaxZoom: Int = 19
    /// HTTPS with this certificate and key (``ServerTLS``); `nil` (the default): plain HTTP,
    /// for a server behind a TLS proxy or on loopback.
    public var tls: ServerTLS? = nil
    /// Push services' credentials and the notification worker (docs/notifications.md).
    public var notifications = NotificationConfiguration()

    public init() {}

    /// Reads a JSON configuration file over these defaults. Keys: `host`, `port`,
    /// `database`, `allowedWebhookHosts`, `maxBodyBytes`, `maxBatchSize`, `metricsToken`,
    /// `profile` (`precise` | `coreLocation`), `webhookRetry` {`baseDelaySeconds`,
    /// `maxDelaySeconds`, `maxAttempts`}, `webhookPollIntervalMilliseconds`,
    /// `regionSyncIntervalMilliseconds`, `maxNearbyRadiusMeters`, `maxConcurrentQueriesPerTenant`,
    /// `requestTimeoutSeconds`, `maxFixClockSkewSeconds`, `dashboardTileURL`, `dashboardTileAttribution`,
    /// `dashboardTileSubdomains`, `dashboardTileMaxZoom`,
    /// `snapshotEveryFixes` (0: no snapshots), `snapshotIntervalSeconds`, `snapshotMaximumShare`,
    /// `fixRetentionDays`,
    /// `eventRetentionDays` (0: keep forever), `sqliteSynchronous` (`normal` | `full`),
    /// `idleTimeoutSeconds`, `maxConnections`, `tlsCertificate`, `tlsKey` (PEM files), `planAssumptions` {`maximumSpeedMetersPerSecond`,
    /// `maximumFixIntervalSeconds`, `maximumAccuracyMeters`, `glitchAllowanceMeters`},
    /// `notifications` (``NotificationConfiguration``: `apns`, `fcm`, `pollIntervalMilliseconds`,
    /// `sendsInFlight`, `additionalTrustRootsPath`).
    /// - Throws: ``ConfigurationError`` naming the key.
    public mutating func apply(configFile path: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ConfigurationError(key: "--config", reason: "cannot read \(path)")
        }
        guard let v = try? ServerJSON.parse(data), let o = try? JSONObjectReader(v, path: "") else {
            throw ConfigurationError(key: "--config", reason: "\(path) is not a JSON object")
        }
        func wrap<T>(_ key: String, _ body: () throws(Problem) -> T) throws -> T {
            do { return try body() } catch { throw ConfigurationError(key: key, reason: error.detail) }
        }
        if let h = try wrap("host", { () throws(Problem) in try o.optionalString("host") }) { host = h }
        if let n = o.fields["notifications"] {
            try wrap("notifications", { () throws(Problem) in try notifications.apply(n) })
        }
        if let p = try wrap("port", { () throws(Problem) in try o.optionalNumber("port") }) { port = Int(p) }
        if let d = try wrap("database", { () throws(Problem) in try o.optionalString("database") }) { database = d }
        if o.has("allowedWebhookHosts") {
            let a = try wrap("allowedWebhookHosts", { () throws(Problem) in try o.array("allowedWebhookHosts") })
            allowedWebhookHosts = try a.map {
                guard case .string(let s) = $0 else {
                    throw ConfigurationError(key: "allowedWebhookHosts", reason: "must hold strings")
                }
                return s
            }
        }
        if let n = try wrap("maxBodyBytes", { () throws(Problem) in try o.optionalNumber("maxBodyBytes") }) {
            maxBodyBytes = Int(n)
        }
        if let n = try wrap("maxBatchSize", { () throws(Problem) in try o.optionalNumber("maxBatchSize") }) {
            maxBatchSize = Int(n)
        }
        if let t = try wrap("dashboardTileURL", { () throws(Problem) in try o.optionalString("dashboardTileURL") }) {
            dashboardTileURL = t
        }
        if let t = try wrap(
            "dashboardTileAttribution", { () throws(Problem) in try o.optionalString("dashboardTileAttribution") })
        {
            dashboardTileAttribution = t
        }
        if o.has("dashboardTileSubdomains") {
            let a = try wrap(
                "dashboardTileSubdomains", { () throws(Problem) in try o.array("dashboardTileSubdomains") })
            dashboardTileSubdomains = try a.map {
                guard case .string(let s) = $0 else {
                    throw ConfigurationError(key: "dashboardTileSubdomains", reason: "must hold strings")
                }
                return s
            }
        }
        if let n = try wrap(
            "dashboardTileMaxZoom", { () throws(Problem) in try o.optionalNumber("dashboardTileMaxZoom") })
        {
            guard n == n.rounded(), n >= 0, n <= 22 else {
                throw ConfigurationError(key: "dashboardTileMaxZoom", reason: "must be a whole number from 0 to 22")
            }
            dashboardTileMaxZoom = Int(n)
        }
        if let t = try wrap("metricsToken", { () throws(Problem) in try o.optionalString("metricsToken") }) {
            metricsToken = t
        }
        let certificate = try wrap("tlsCertificate", { () throws(Problem) in try o.optionalString("tlsCertificate") })
        let key = try wrap("tlsKey", { () throws(Problem) in try o.optionalString("tlsKey") })
        if certificate != nil || key != nil {
            guard let certificate, let key else {
                throw ConfigurationError(
                    key: certificate == nil ? "tlsCertificate" : "tlsKey",
                    reason: "TLS needs both tlsCertificate and tlsKey")
            }
            tls = ServerTLS(certificatePath: certificate, keyPath: key)
        }
        if let m = try wrap("sqliteSynchronous", { () throws(Problem) in try o.optionalString("sqliteSynchronous") }) {
            sqliteSynchronous = try Self.sqliteSynchronous(m, key: "sqliteSynchronous")
        }
        if let p = try wrap("profile", { () throws(Problem) in try o.optionalString("profile") }) {
            switch p {
            case "precise": policy = .precise
            case "coreLocation": policy = .coreLocation
            default:
                throw ConfigurationError(
                    key: "profile", reason: "must be \"precise\" or \"coreLocation\", not \"\(p)\"")
            }
        }
        if o.has("planAssumptions") {
            let p = try wrap(
                "planAssumptions",
                { () throws(Problem) in try JSONObjectReader(o.fields["planAssumptions"]!, path: "planAssumptions") })
            var assumptions = PlanAssumptions()
            try assumptions.apply(p)
            planSizing = assumptions.sizing
        }
        if o.has("webhookRetry") {
            let r = try wrap(
                "webhookRetry",
                { () throws(Problem) in try JSONObjectReader(o.fields["webhookRetry"]!, path: "webhookRetry") })
            if let b = try wrap(
                "webhookRetry.baseDelaySeconds", { () throws(Problem) in try r.optionalNumber("baseDelaySeconds") })
            {
                webhookRetry.baseDelay = .milliseconds(Int64(b * 1000))
            }
            if let m = try wrap(
                "webhookRetry.maxDelaySeconds", { () throws(Problem) in try r.optionalNumber("maxDelaySeconds") })
            {
                webhookRetry.maxDelay = .milliseconds(Int64(m * 1000))
            }
            if let a = try wrap(
                "webhookRetry.maxAttempts", { () throws(Problem) in try r.optionalNumber("maxAttempts") })
            {
                webhookRetry.maxAttempts = Int(a)
            }
        }
        if let m = try wrap(
            "maxNearbyRadiusMeters", { () throws(Problem) in try o.optionalNumber("maxNearbyRadiusMeters") })
        {
            maxNearbyRadiusMeters = m
        }
        if let n = try wrap(
            "maxConcurrentQueriesPerTenant",
            { () throws(Problem) in try o.optionalNumber("maxConcurrentQueriesPerTenant") })
        {
            maxConcurrentQueriesPerTenant = Int(n)
        }
        if let s = try wrap(
            "requestTimeoutSeconds", { () throws(Problem) in try o.optionalNumber("requestTimeoutSeconds") })
        {
            requestTimeout = .milliseconds(Int64(s * 1000))
        }
        if let s = try wrap("idleTimeoutSeconds", { () throws(Problem) in try o.optionalNumber("idleTimeoutSeconds") })
        {
            guard s.isFinite, s > 0, s <= 86_400 else {
                throw ConfigurationError(key: "idleTimeoutSeconds", reason: "must be from 0 (exclusive) to 86400")
            }
            idleTimeout = .milliseconds(Int64((s * 1000).rounded(.up)))
        }
        if let n = try wrap("maxConnections", { () throws(Problem) in try o.optionalNumber("maxConnections") }) {
            guard n >= 1, n <= 1_000_000, n == n.rounded() else {
                throw ConfigurationError(key: "maxConnections", reason: "must be a whole number from 1 to 1000000")
            }
            maxConnections = Int(n)
        }
        if let s = try wrap(
            "maxFixClockSkewSeconds", { () throws(Problem) in try o.optionalNumber("maxFixClockSkewSeconds") })
        {
            fixTimeWindow.maximumSkew = .milliseconds(Int64(s * 1000))
        }
        if let ms = try wrap(
            "regionSyncIntervalMilliseconds",
            { () throws(Problem) in try o.optionalNumber("regionSyncIntervalMilliseconds") })
        {
            regionSyncInterval = .milliseconds(Int64(ms))
        }
        if let ms = try wrap(
            "webhookPollIntervalMilliseconds",
            { () throws(Problem) in try o.optionalNumber("webhookPollIntervalMilliseconds") })
        {
            webhookPollInterval = .milliseconds(Int64(ms))
        }
        if let n = try wrap("snapshotEveryFixes", { () throws(Problem) in try o.optionalNumber("snapshotEveryFixes") })
        {
            guard n >= 0, n <= 1e12, n == n.rounded() else {
                throw ConfigurationError(key: "snapshotEveryFixes", reason: "must be a whole number ≥ 0")
            }
            snapshots.isEnabled = n > 0
            snapshots.everyFixes = max(Int(n), 1)
        }
        if let s = try wrap(
            "snapshotIntervalSeconds", { () throws(Problem) in try o.optionalNumber("snapshotIntervalSeconds") })
        {
            guard s.isFinite, s > 0, s <= 1e9 else {
                throw ConfigurationError(key: "snapshotIntervalSeconds", reason: "must be positive")
            }
            snapshots.interval = .milliseconds(Int64((s * 1000).rounded()))
        }
        if let f = try wrap(
            "snapshotMaximumShare", { () throws(Problem) in try o.optionalNumber("snapshotMaximumShare") })
        {
            guard f > 0, f <= 1 else {
                throw ConfigurationError(key: "snapshotMaximumShare", reason: "must be in (0, 1] (1: no bound)")
            }
            snapshots.maximumShare = f
        }
        if let d = try wrap("fixRetentionDays", { () throws(Problem) in try o.optionalNumber("fixRetentionDays") }) {
            fixRetention = try Self.retention(days: d, key: "fixRetentionDays")
        }
        if let d = try wrap("eventRetentionDays", { () throws(Problem) in try o.optionalNumber("eventRetentionDays") })
        {
            eventRetention = try Self.retention(days: d, key: "eventRetentionDays")
        }
        try validate()
    }

    /// The SQLite durability named `name`; throws ``ConfigurationError`` naming `key`.
    public static func sqliteSynchronous(_ name: String, key: String) throws -> SQLiteSynchronous {
        guard let mode = SQLiteSynchronous(rawValue: name) else {
            throw ConfigurationError(key: key, reason: "must be \"normal\" or \"full\", not \"\(name)\"")
        }
        return mode
    }

    /// A retention of `days` days (0: keep forever); throws ``ConfigurationError`` naming `key`.
    public static func retention(days: Double, key: String) throws -> Duration? {
        guard days.isFinite, days >= 0, days <= 36_500 else {
            throw ConfigurationError(key: key, reason: "must be a number of days from 0 (keep forever) to 36500")
        }
        return days == 0 ? nil : .milliseconds(Int64((days * 86_400_000).rounded()))
    }

    /// Checks ranges; throws ``ConfigurationError`` naming the key.
    public func validate() throws {
        guard (0...65_535).contains(port) else {
            throw ConfigurationError(key: "port", reason: "\(port) is not a TCP port")
        }
        guard maxBodyBytes >= 1_024 else {
            throw ConfigurationError(key: "maxBodyBytes", reason: "must be at least 1024")
        }
        guard maxBatchSize >= 1 else { throw ConfigurationError(key: "maxBatchSize", reason: "must be at least 1") }
        guard webhookRetry.maxAttempts >= 1 else {
            throw ConfigurationError(key: "webhookRetry.maxAttempts", reason: "must be at least 1")
        }
        guard maxNearbyRadiusMeters >= 1, maxNearbyRadiusMeters <= 1_000_000 else {
            throw ConfigurationError(key: "maxNearbyRadiusMeters", reason: "must be in [1, 1000000] metres")
        }
        guard maxConcurrentQueriesPerTenant >= 1 else {
            throw ConfigurationError(key: "maxConcurrentQueriesPerTenant", reason: "must be at least 1")
        }
        guard requestTimeout > .zero else {
            throw ConfigurationError(key: "requestTimeoutSeconds", reason: "must be positive")
        }
        guard snapshots.everyFixes >= 1 else {
            throw ConfigurationError(key: "snapshotEveryFixes", reason: "must be at least 1")
        }
        guard snapshots.interval > .zero else {
            throw ConfigurationError(key: "snapshotIntervalSeconds", reason: "must be positive")
        }
        guard retentionBatch >= 1, retentionCheckInterval > .zero else {
            throw ConfigurationError(key: "retention", reason: "the batch and the check interval must be positive")
        }
        guard !database.isEmpty else { throw ConfigurationError(key: "database", reason: "is empty") }
        if let tls { _ = try tls.configuration() }
        if let t = dashboardTileURL {
            guard t.hasPrefix("https://") || t.hasPrefix("http://"), ["{z}", "{x}", "{y}"].allSatisfy(t.contains) else {
                throw ConfigurationError(
                    key: "dashboardTileURL", reason: "must be an http(s) URL template with {z}, {x} and {y}")
            }
            if t.contains("{s}") {
                func isLabel(_ s: String) -> Bool {
                    (1...63).contains(s.count)
                        && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }
                guard !dashboardTileSubdomains.isEmpty, dashboardTileSubdomains.allSatisfy(isLabel) else {
                    throw ConfigurationError(
                        key: "dashboardTileSubdomains", reason: "must be one or more host labels (letters, digits, -)")
                }
            }
        }
    }
}

/// A bad configuration value; `key` names it.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var key: String
    public var reason: String
    public var description: String { "configuration \(key): \(reason)" }
}

/// Exponential back-off for webhook retries: attempt n (1-based) failing waits
/// `min(baseDelay × 2^(n-1), maxDelay)`; after `maxAttempts` attempts the delivery is
/// marked `failed` (visible in the API) and never retried.
public struct RetryPolicy: Sendable, Hashable {
    public var baseDelay: Duration = .seconds(1)
    public var maxDelay: Duration = .seconds(3_600)
    public var maxAttempts: Int = 15

    public init(baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(3_600), maxAttempts: Int = 15) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxAttempts = maxAttempts
    }

    /// The wait after the `attempt`-th failed attempt (1-based), or `nil` to give up.
    public func delay(afterAttempt attempt: Int) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        let factor = 1 << min(max(attempt - 1, 0), 40)
        let d = baseDelay * factor
        return d > maxDelay ? maxDelay : d
    }
}

extension Duration {
    var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) / 1e18
    }
}
