import AsyncHTTPClient
import Foundation
import Geofencing
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The geofence server: devices report locations over HTTP, the server runs each tenant's
/// ``Engine`` over them, stores the resulting events in an outbox in the same transaction, and
/// delivers them by webhook.
///
/// ```swift
/// let store = try await GeofenceServer.openStore("geofence.sqlite")
/// let server = GeofenceServer(configuration: config, store: store)
/// let key = try await server.createAPIKey(tenant: "acme")
/// let app = try await server.makeApplication()
/// try await app.runService()          // until SIGINT / SIGTERM, then drains and flushes
/// ```
///
/// Routes (all JSON, all but `/health` need `Authorization: Bearer KEY`; the OpenAPI 3.1
/// document is at `/v1/openapi.json`, docs/server.md has the walkthrough):
/// `GET /health`, `GET /metrics`, `POST|GET /v1/regions`, `GET|PUT|DELETE /v1/regions/{id}`,
/// `POST /v1/regions/import`, `GET /v1/regions/nearby`, `POST /v1/devices/{id}/locations`,
/// `GET /v1/devices/{id}/state`, `GET /v1/events`, `GET /v1/events/stream` (SSE), `POST|GET /v1/webhooks`,
/// `DELETE /v1/webhooks/{id}`, `GET /v1/webhooks/{id}/deliveries`.
///
/// Start-up restores every tenant's engine from its latest snapshot and replays the journal
/// after it (``ServerConfiguration/snapshots``; the whole journal when there is no usable
/// snapshot). Several
/// instances may share one PostgreSQL database (``PostgresStore``): per-device writes are
/// serialised there, and each instance polls for region changes made elsewhere every
/// ``ServerConfiguration/regionSyncInterval`` (docs/server.md, "Scale-out").
public struct GeofenceServer: Sendable {
    public let configuration: ServerConfiguration
    public let store: any ServerStore
    /// The webhook worker, run as a service of the application.
    public let dispatcher: WebhookDispatcher
    /// The notification worker, run as a service of the application (`nil` when the store
    /// keeps no notifications).
    public let notifier: NotificationDispatcher?
    let hub: TenantHub
    let keys: KeyCache
    /// Per-tenant concurrency of read queries (``ServerConfiguration/maxConcurrentQueriesPerTenant``).
    let queryLimiter: QueryLimiter
    let clock: @Sendable () -> Date
    let metrics: ServerMetrics
    /// Tracking-app reports acknowledged and not used, per device (``ingestAppReport``).
    let setAside = SetAsideLedger()
    /// The TLS context of the running application, when it serves HTTPS.
    let tlsSlot = ServerTLSSlot()
    let logger: Logger

    /// - Parameters:
    ///   - clock: the wall clock for bookkeeping times (outbox, deliveries, retries); event
    ///     times always come from the fixes.
    public init(
        configuration: ServerConfiguration, store: any ServerStore, httpClient: HTTPClient = .shared,
        clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "geofence.server"),
        pushSenders: PushSenders? = nil
    ) {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.logger = logger
        let metrics = ServerMetrics()
        self.metrics = metrics
        (store as? SQLiteStore)?.reportConnectionTimings(to: metrics.connection)
        self.hub = TenantHub(
            store: store, policy: configuration.policy, metrics: metrics,
            snapshotSchedule: configuration.snapshots, engineShards: configuration.engineShards, logger: logger)
        self.keys = KeyCache(store: store)
        self.queryLimiter = QueryLimiter(limit: configuration.maxConcurrentQueriesPerTenant)
        self.dispatcher = WebhookDispatcher(
            store: store, client: httpClient, retry: configuration.webhookRetry,
            pollInterval: configuration.webhookPollInterval,
            timeout: configuration.webhookTimeout, clock: clock,
            logger: logger, metrics: metrics)
        self.notifier = (store as? any NotificationStore).map {
            NotificationDispatcher(
                store: $0,
                senders: pushSenders
                    ?? PushSenders.make(
                        configuration.notifications, sharedTokens: store as? any ProviderTokenStore, logger: logger),
                configuration: configuration.notifications, clock: clock, logger: logger)
        }
    }

    /// Opens and migrates the store named by `database`: a `postgres://` URL
    /// (``PostgresStore``), or an SQLite path (created on first start) or `:memory:`, which
    /// commits with the durability of `sqliteSynchronous`.
    public static func openStore(
        _ database: String, sqliteSynchronous: SQLiteSynchronous = .normal,
        logger: Logger = Logger(label: "geofence.store")
    ) async throws -> any ServerStore {
        if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            let store = try await PostgresStore.open(url: database, logger: logger)
            do { try await store.migrate() } catch {
                try? await store.close()
                throw error
            }
            return store
        }
        let store = try await SQLiteStore.open(path: database, synchronous: sqliteSynchronous, logger: logger)
        do { try await store.migrate() } catch {
            try? await store.close()
            throw error
        }
        return store
    }

    /// Creates an API key for `tenant` (creating the tenant) with `scope` (``KeyScope``:
    /// everything by default); returns the key, which is shown once — only its SHA-256 is stored.
    /// The tenant name and the device binding are identifiers, normalized to NFC
    /// (``Identifier``): a key bound to `é` reports for `é` however a request spells it.
    public func createAPIKey(tenant: String, scope: KeyScope = .admin) async throws -> String {
        let tenant = Identifier.normalized(tenant)
        if let why = Identifier.flaw(tenant) {
            throw ConfigurationError(key: "--tenant", reason: "the tenant name \(why)")
        }
        func bound(_ raw: String) throws -> String {
            let id = Identifier.normalized(raw)
            if let why = Identifier.flaw(id) {
                throw ConfigurationError(key: "--device", reason: "the device id \(why)")
            }
            return id
        }
        func normalized(_ binding: KeyScope.DeviceBinding) throws -> KeyScope.DeviceBinding {
            switch binding {
            case .device(let id): try .device(bound(id))
            case .prefix(let prefix): try .prefix(bound(prefix))
            }
        }
        var scope = scope
        switch scope {
        case .ingest(devices: let binding?): scope = .ingest(devices: try normalized(binding))
        case .device(let binding): scope = .device(devices: try normalized(binding))
        default: break
        }
        let key = APIKey.generate()
        try await store.addAPIKey(tenant: tenant, keyHash: APIKey.hash(key), scope: scope, now: clock())
        return key
    }

    /// Reads the TLS certificate and key files again (what SIGHUP does): connections accepted
    /// from now on use them; open ones keep theirs. When the files cannot be read, or the server
    /// serves no TLS, this throws ``ConfigurationError`` and nothing changes.
    public func reloadTLS() throws {
        guard let context = tlsSlot.context else {
            throw ConfigurationError(key: "tls", reason: "this server is not serving TLS")
        }
        try context.reload()
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully: stops accepting requests,
    /// lets requests in flight finish, and gives the webhook worker a last round (flush).
    public func run() async throws {
        let app = try await makeApplication()
        try await app.runService()
    }

    /// The router with every route, for embedding or testing.
    public func makeRouter() -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: ProblemMiddleware(logger: logger, metrics: metrics))
        router.get("health") { _, _ -> Response in .json(.object(["status": .string("ok")])) }
        addDashboardRoutes(to: router)

        let metrics = self.metrics
        let keys = self.keys
        let token = configuration.metricsToken
        router.get("metrics") { request, _ -> Response in
            guard let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else {
                throw Problem.unauthorized
            }
            let presented = String(auth.dropFirst(7))
            if let token {
                guard presented == token else { throw Problem.unauthorized }
            } else {
                guard let grant = try await keys.grant(forKey: presented) else { throw Problem.unauthorized }
                try grant.scope.check(request.method, path: request.uri.path)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }

        let v1 = router.group("v1").add(middleware: APIKeyMiddleware(keys: keys))
            .add(middleware: RequestBudgetMiddleware(timeout: configuration.requestTimeout))
        v1.get("openapi.json") { _, _ -> Response in
            guard let document = OpenAPIDocument.data else {
                throw Problem(
                    status: .internalServerError, detail: "the OpenAPI document is missing from the server's resources")
            }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(data: document)))
        }
        v1.get("key") { _, context -> Response in
            // What the key in use may do (the dashboard greys out what it may not).
            var o: [String: ServerJSON] = ["tenant": .string(try context.requireTenant())]
            switch context.scope {
            case .admin: o["scope"] = .string("admin")
            case .read: o["scope"] = .string("read")
            case .ingest: o["scope"] = .string("ingest")
            case .device: o["scope"] = .string("device")
            }
            if case .device(let id)? = context.scope.binding { o["device"] = .string(id) }
            if case .prefix(let prefix)? = context.scope.binding { o["devicePrefix"] = .string(prefix) }
            return .json(.object(o))
        }
        addRegionRoutes(to: v1)
        addRegionMapRoutes(to: v1)
        addDeviceRoutes(to: v1)
        addDeviceListRoutes(to: v1)
        addPlanRoutes(to: v1)
        addStreamRoutes(to: v1)
        addEventRoutes(to: v1)
        addHistoryRoutes(to: v1)
        addWebhookRoutes(to: v1)
        addNotificationRoutes(to: v1)
        addIngestRoutes(to: router)
        return router
    }

    /// The retention worker (``Retention``), run as a service of the application.
    var retention: Retention {
        Retention(
            store: store, fixRetention: configuration.fixRetention, eventRetention: configuration.eventRetention,
            interval: configuration.retentionCheckInterval, batch: configuration.retentionBatch, clock: clock,
            logger: logger)
    }

    /// Rebuilds every tenant's engine from the store and returns the application (HTTP server
    /// plus the webhook worker), ready for `runService()`. `onServerRunning` receives the bound
    /// port (useful with port 0).
    public func makeApplication(
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    )
        async throws -> some ApplicationProtocol
    {
        try Failpoints.checkAtStartup(logger: logger)
        try PushSenders.checkCredentials(configuration.notifications)
        let started = ContinuousClock.now
        let (tenants, fromSnapshots) = try await hub.loadAll()
        let seconds = (ContinuousClock.now - started).seconds
        logger.info(
            "engines rebuilt from the store",
            metadata: [
                "tenants": "\(tenants)", "fromSnapshots": "\(fromSnapshots)",
                "seconds": "\((seconds * 1_000).rounded() / 1_000)",
            ])
        let logger = self.logger
        let maxConnections = configuration.effectiveMaxConnections
        let tlsContext = try configuration.tls.map(ServerTLSContext.init)
        tlsSlot.context = tlsContext
        let tls = tlsContext != nil
        let server = HTTPServerBuilder.serving(idleTimeout: configuration.idleTimeout, tls: tlsContext)
        var services: [any Service] = [
            dispatcher,
            RegionSync(store: store, hub: hub, interval: configuration.regionSyncInterval, logger: logger),
            retention,
        ]
        if let notifier { services.append(notifier) }
        if let tlsContext { services.append(TLSReloadOnHangup(tls: tlsContext, logger: logger)) }
        if maxConnections < configuration.maxConnections {
            logger.warning(
                "connections capped below maxConnections by the open-file limit (raise it with ulimit -n)",
                metadata: [
                    "maxConnections": "\(configuration.maxConnections)", "allowed": "\(maxConnections)",
                    "openFileLimit": "\(ServerConfiguration.openFileLimit ?? 0)",
                ])
        }
        return Application(
            router: makeRouter(),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "geofence",
                availableConnectionsDelegate: MaximumAvailableConnections(maxConnections, logger: logger)),
            services: services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.info("listening", metadata: ["port": "\(port)", "tls": "\(tls)"])
                await onServerRunning(port)
            },
            logger: logger
        )
    }
}
