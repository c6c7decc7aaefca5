import ArgumentParser
import Foundation
import GeofenceServer
import Logging

/// `geofence serve`: runs the geofence HTTP server, and `geofence serve create-key` makes API keys.
public struct ServeCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the geofence server: devices report locations, events go out by webhook.",
        discussion: """
            With no arguments the server listens on 127.0.0.1:8080 and keeps its data in \
            geofence.sqlite in the working directory (created on first start).

            Examples:
              geofence serve create-key --tenant acme
              geofence serve --port 8080 --database /var/lib/geofence/geofence.sqlite
              geofence serve --database postgres://geofence:secret@db.internal:5432/geofence
              geofence serve --config server.json
              geofence serve --host 0.0.0.0 --port 8443 --tls-certificate cert.pem --tls-key key.pem

            The config file is JSON: host, port, database, allowedWebhookHosts, maxBodyBytes, \
            maxBatchSize, metricsToken, profile, webhookRetry {baseDelaySeconds, maxDelaySeconds, \
            maxAttempts}, snapshotEveryFixes, snapshotIntervalSeconds, snapshotMaximumShare, \
            fixRetentionDays, eventRetentionDays, sqliteSynchronous, idleTimeoutSeconds, \
            maxConnections, tlsCertificate, tlsKey, planAssumptions {maximumSpeedMetersPerSecond, \
            maximumFixIntervalSeconds, maximumAccuracyMeters, glitchAllowanceMeters}. \
            Command-line options override it. See docs/server.md.
            """,
        subcommands: [CreateKey.self, Loadgen.self]
    )

    @Option(help: "TCP port to listen on (0: any free port).")
    var port: Int?

    @Option(help: "Interface to bind (default 127.0.0.1).")
    var host: String?

    @Option(help: "SQLite file (created on first start) or postgres:// URL.")
    var database: String?

    @Option(help: "JSON configuration file.")
    var config: String?

    @Option(help: "Allow webhooks to this host (repeatable).")
    var allowWebhookHost: [String] = []

    @Option(help: "Checkpoint a tenant's engine after this many fixes (default 100000; 0: never).")
    var snapshotEveryFixes: Int?

    @Option(help: "Checkpoint a tenant's engine at least this often while it receives fixes, in seconds (default 600).")
    var snapshotIntervalSeconds: Double?

    @Option(help: "Spread each tenant's devices over this many engines run in parallel (default: one per core).")
    var engineShards: Int?

    @Option(help: "Delete stored fixes older than this many days (default 30; 0: keep forever).")
    var fixRetentionDays: Double?

    @Option(help: "Delete delivered events older than this many days (default 30; 0: keep forever).")
    var eventRetentionDays: Double?

    @Option(help: "SQLite durability: normal (a power loss can lose the last commits) or full (an fsync per commit).")
    var sqliteSynchronous: SQLiteSynchronous?

    @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key; read at start-up and on SIGHUP).")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    public init() {}

    func resolvedConfiguration() throws -> ServerConfiguration {
        var c = ServerConfiguration()
        if let config { try c.apply(configFile: config) }
        if let port { c.port = port }
        if let host { c.host = host }
        if let database { c.database = database }
        c.allowedWebhookHosts += allowWebhookHost
        if let n = snapshotEveryFixes {
            c.snapshots.isEnabled = n > 0
            c.snapshots.everyFixes = max(n, 1)
        }
        if let s = snapshotIntervalSeconds { c.snapshots.interval = .milliseconds(Int64((s * 1000).rounded())) }
        if let n = engineShards {
            guard n >= 1, n <= 1_024 else { throw ValidationError("--engine-shards must be from 1 to 1024") }
            c.engineShards = n
        }
        if let d = fixRetentionDays {
            c.fixRetention = try ServerConfiguration.retention(days: d, key: "--fix-retention-days")
        }
        if let d = eventRetentionDays {
            c.eventRetention = try ServerConfiguration.retention(days: d, key: "--event-retention-days")
        }
        if let m = sqliteSynchronous { c.sqliteSynchronous = m }
        switch (tlsCertificate, tlsKey) {
        case (let certificate?, let key?): c.tls = ServerTLS(certificatePath: certificate, keyPath: key)
        case (nil, nil): break
        default: throw ValidationError("TLS needs both --tls-certificate and --tls-key")
        }
        try c.validate()
        return c
    }

    public func validate() throws {
        do { _ = try resolvedConfiguration() } catch let e as ConfigurationError {
            throw ValidationError(e.description)
        }
    }

    public func run() async throws {
        let configuration = try resolvedConfiguration()
        var logger = Logger(label: "geofence.server")
        logger.logLevel = .info
        let store = try await GeofenceServer.openStore(
            configuration.database, sqliteSynchronous: configuration.sqliteSynchronous, logger: logger)
        // A server process: its background work takes only the cores the requests leave.
        BackgroundPriority.useIdle()
        let server = GeofenceServer(configuration: configuration, store: store, logger: logger)
        try await server.run()
        try await store.close()
    }

    /// `geofence serve create-key --tenant T`: prints a new API key for the tenant.
    public struct CreateKey: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "create-key",
            abstract: "Create an API key for a tenant (printed once; only its hash is stored).",
            discussion: """
                Scopes: admin (everything, the default), read (reads only: a dashboard viewer), \
                ingest (reports fixes only: a tracking app's key), optionally bound to one device \
                id (--device) or to the ids that start with a prefix (--device-prefix), and device \
                (what a phone that follows the server's plans needs: report its fixes, read its \
                plan and settings, manage its push tokens), always bound with --device or \
                --device-prefix.

                Examples:
                  geofence serve create-key --tenant acme --database geofence.sqlite
                  geofence serve create-key --tenant acme --scope read
                  geofence serve create-key --tenant acme --scope ingest --device phone-7
                  geofence serve create-key --tenant acme --scope ingest --device-prefix alice/
                  geofence serve create-key --tenant acme --scope device --device phone-7
                """
        )

        @Option(help: "Tenant the key belongs to (created if new).")
        var tenant: String

        @Option(help: "What the key may do: admin, read, ingest or device.")
        var scope: String = "admin"

        @Option(help: "With --scope ingest or device: the one device id the key acts for.")
        var device: String?

        @Option(help: "With --scope ingest or device: the key acts for the device ids that start with this.")
        var devicePrefix: String?

        /// The scope the options name.
        func keyScope() throws -> KeyScope {
            let binding: KeyScope.DeviceBinding?
            switch (device, devicePrefix) {
            case (nil, nil): binding = nil
            case (let id?, nil): binding = .device(id)
            case (nil, let prefix?): binding = .prefix(prefix)
            default: throw ValidationError("give --device or --device-prefix, not both")
            }
            switch (scope, binding) {
            case ("admin", nil): return .admin
            case ("read", nil): return .read
            case ("admin", _), ("read", _):
                throw ValidationError(
                    "--device and --device-prefix bind an ingest or device key: add --scope ingest or device")
            case ("ingest", _): return .ingest(devices: binding)
            case ("device", let binding?): return .device(devices: binding)
            case ("device", nil):
                throw ValidationError("a device key is bound to its phone: add --device ID or --device-prefix PREFIX")
            default: throw ValidationError("--scope must be admin, read, ingest or device, not \"\(scope)\"")
            }
        }

        public func validate() throws { _ = try keyScope() }

        /// `serve`'s own options: `--database` and `--config` name the store. (A second
        /// `--database` here would never be set: the parser gives the value to `serve`.)
        @ParentCommand var serve: ServeCommand

        public init() {}

        public func run() async throws {
            let database = try serve.resolvedConfiguration().database
            let store = try await GeofenceServer.openStore(database)
            var c = ServerConfiguration()
            c.database = database
            let key = try await GeofenceServer(configuration: c, store: store).createAPIKey(
                tenant: tenant, scope: try keyScope())
            try await store.close()
            print(key)
        }
    }
}

/// `--sqlite-synchronous normal|full` (the values listed in `--help`).
extension SQLiteSynchronous: ExpressibleByArgument {}
