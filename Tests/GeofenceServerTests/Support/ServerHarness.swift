import AsyncHTTPClient
import Foundation
import GeofenceServer
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// A wall clock the test moves by hand (webhook retry schedules, outbox times).
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now: Date
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { now = start }
    var date: Date { lock.withLock { now } }
    func advance(_ seconds: TimeInterval) { lock.withLock { now = now.addingTimeInterval(seconds) } }
    var closure: @Sendable () -> Date { { self.date } }
}

/// One HTTP answer, parsed.
struct Reply: CustomStringConvertible {
    var status: Int
    var headers: [(String, String)]
    var text: String
    var json: ServerJSON? { try? ServerJSON.parse(Data(text.utf8)) }
    var description: String { "\(status) \(text.prefix(400))" }

    subscript(_ key: String) -> ServerJSON? {
        guard case .object(let o)? = json else { return nil }
        return o[key]
    }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
}

/// A real server on a loopback port with a fresh SQLite file in a temp directory.
struct Harness {
    let server: GeofenceServer
    let port: Int
    let clock: ManualClock
    let databasePath: String

    static func quietLogger() -> Logger {
        var l = Logger(label: "test")
        // GEOFENCE_TEST_LOG_LEVEL=debug shows the servers' logs when a test needs explaining.
        l.logLevel =
            ProcessInfo.processInfo.environment["GEOFENCE_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
            ?? .critical
        return l
    }

    static func temporaryDatabase() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("geofence-tests-\(UUID().uuidString)")
        return dir.appendingPathComponent("nested/geofence.sqlite").path
    }

    /// Starts a server, runs `body`, shuts the server down gracefully. `wrap` may put a test
    /// double around the opened store.
    static func run<T: Sendable>(
        database: String = temporaryDatabase(), clock: ManualClock = ManualClock(),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        wrap: (any ServerStore) -> any ServerStore = { $0 },
        pushSenders: PushSenders? = nil,
        _ body: (Harness) async throws -> T
    ) async throws -> T {
        var config = ServerConfiguration()
        config.port = 0
        config.database = database
        config.allowedWebhookHosts = ["127.0.0.1"]
        config.webhookPollInterval = .seconds(3_600) // tests drive deliveries with deliverDue()
        config.notifications.pollInterval = .seconds(3_600) // and notifications with notifier.deliverDue()
        config.webhookRetry = RetryPolicy(baseDelay: .seconds(1), maxDelay: .seconds(60), maxAttempts: 6)
        // Tests stamp fixes relative to the clock's start and move the clock only where time
        // matters to them, so the window's future edge is opened wide here; the tests of the
        // window (HostileRequestTests) set it back.
        config.fixTimeWindow.maximumSkew = .seconds(10 * 365 * 86_400)
        configure(&config)
        let store = wrap(try await GeofenceServer.openStore(database, logger: quietLogger()))
        let server = GeofenceServer(
            configuration: config, store: store, clock: clock.closure, logger: quietLogger(), pushSenders: pushSenders)
        let (ports, portCont) = AsyncStream.makeStream(of: Int.self)
        let app = try await server.makeApplication { portCont.yield($0) }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: quietLogger())
        let task = Task { try await group.run() }
        var it = ports.makeAsyncIterator()
        guard let port = await it.next() else { throw CancellationError() }
        let h = Harness(server: server, port: port, clock: clock, databasePath: database)
        do {
            let r = try await body(h)
            await group.triggerGracefulShutdown()
            try await task.value
            try await store.close()
            return r
        } catch {
            await group.triggerGracefulShutdown()
            try? await task.value
            try? await store.close()
            throw error
        }
    }

    func key(_ tenant: String) async throws -> String { try await server.createAPIKey(tenant: tenant) }

    func call(
        _ method: HTTPMethod, _ path: String, key: String?, body: String? = nil,
        headers extra: [(String, String)] = []
    ) async throws -> Reply {
        var req = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        req.method = method
        if let key { req.headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let body {
            req.headers.add(name: "Content-Type", value: "application/json")
            req.body = .bytes(ByteBuffer(string: body))
        }
        for (k, v) in extra { req.headers.add(name: k, value: v) }
        let resp = try await HTTPClient.shared.execute(req, timeout: .seconds(30))
        let buf = try await resp.body.collect(upTo: 64 << 20)
        return Reply(
            status: Int(resp.status.code), headers: resp.headers.map { ($0.name, $0.value) },
            text: String(buffer: buf))
    }
}

/// A loopback webhook receiver: records each POST and answers with the next scripted status
/// (200 once the script runs out).
actor ReceiverLog {
    struct Hit: Sendable {
        var eventID: String
        var signature: String
        var body: Data
        var attempt: String
    }
    var hits: [Hit] = []
    var script: [Int]
    init(script: [Int]) { self.script = script }
    func record(_ h: Hit) -> Int {
        hits.append(h)
        return script.isEmpty ? 200 : script.removeFirst()
    }
}

struct Receiver {
    let port: Int
    let log: ReceiverLog
    var url: String { "http://127.0.0.1:\(port)/hook" }

    static func run<T: Sendable>(script: [Int] = [], _ body: (Receiver) async throws -> T) async throws -> T {
        let log = ReceiverLog(script: script)
        let router = Router()
        router.post("hook") { request, _ -> Response in
            var request = request
            let buf = try await request.collectBody(upTo: 1 << 20)
            let status = await log.record(
                .init(
                    eventID: request.headers[HTTPField.Name("Geofence-Event-Id")!] ?? "",
                    signature: request.headers[HTTPField.Name("Geofence-Signature")!] ?? "",
                    body: Data(buffer: buf),
                    attempt: request.headers[HTTPField.Name("Geofence-Attempt")!] ?? ""))
            return Response(status: .init(code: status))
        }
        let (ports, cont) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { cont.yield($0.localAddress?.port ?? 0) }, logger: Harness.quietLogger())
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Harness.quietLogger())
        let task = Task { try await group.run() }
        var it = ports.makeAsyncIterator()
        guard let port = await it.next() else { throw CancellationError() }
        defer { task.cancel() }
        let r = try await body(Receiver(port: port, log: log))
        await group.triggerGracefulShutdown()
        try? await task.value
        return r
    }
}

/// Builds JSON text for fixes.
func fixJSON(_ lat: Double, _ lon: Double, t: Double, accuracy: Double = 10) -> String {
    #"{"latitude":\#(lat),"longitude":\#(lon),"timestamp":\#(t),"horizontalAccuracy":\#(accuracy)}"#
}

func circleFeature(_ id: String, lat: Double, lon: Double, radius: Double, extra: String = "") -> String {
    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(lon),\#(lat)]},"properties":{"id":"\#(id)","radius":\#(radius)\#(extra)}}"#
}

extension ServerJSON {
    var array: [ServerJSON]? { if case .array(let a) = self { a } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
}
