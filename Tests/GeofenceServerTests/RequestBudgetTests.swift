import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Testing

@testable import GeofenceServer

#if canImport(Glibc)
import Glibc
#endif

/// ``RequestBudgetMiddleware``: a request over its budget ends with a 503 problem and its work
/// is cancelled; a client that goes away cancels its work. The budget's timer is a gate the
/// test opens, so nothing waits for real time.
@Suite("Request budget and client disconnects")
struct RequestBudgetTests {
    /// One-shot signals between the test and a handler: ``wait()`` returns once the signal has
    /// fired, at once if it already has, or when the waiting task is cancelled. Each waiter is
    /// independent (an `AsyncStream` ends for every later reader once one reader is cancelled,
    /// which made a budget that never ran out look run out).
    final class Signal: Sendable {
        private let state = NIOLockedValueBox<(fired: Bool, waiters: [UUID: CheckedContinuation<Void, Never>])>(
            (false, [:]))

        func fire() {
            let waiting = state.withLockedValue { s in
                s.fired = true
                defer { s.waiters = [:] }
                return s.waiters
            }
            for c in waiting.values { c.resume() }
        }

        func wait() async {
            let id = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let now = state.withLockedValue { s -> Bool in
                        if s.fired || Task.isCancelled { return true }
                        s.waiters[id] = c
                        return false
                    }
                    if now { c.resume() }
                }
            } onCancel: {
                state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// What the handler saw.
    struct Probe: Sendable {
        let started = Signal()
        let cancelled = Signal()
        let expire = Signal()
        /// Lets the handler finish normally.
        let finish = Signal()
    }

    /// A server with two routes behind the middleware, each signalling `started` first:
    /// `/v1/work` waits for `finish` (→ 200) or for its task to be cancelled (signals
    /// `cancelled`, throws); `/v1/commit` stands for work that cannot be undone: it waits for
    /// `finish` whatever happens, then answers 200.
    static func withServer(
        _ probe: Probe, idleTimeout: Duration? = nil, _ body: (Int) async throws -> Void
    ) async throws {
        let router = Router(context: APIRequestContext.self)
        router.add(middleware: ProblemMiddleware(logger: Harness.quietLogger(), metrics: ServerMetrics()))
        router.group("v1").add(
            middleware: RequestBudgetMiddleware(timeout: .seconds(7), expiry: { _ in await probe.expire.wait() })
        )
        .get("work") { _, _ -> Response in
            probe.started.fire()
            await probe.finish.wait()
            if Task.isCancelled {
                probe.cancelled.fire()
                throw CancellationError()
            }
            return .json(.object(["done": .bool(true)]))
        }
        router.group("v1").add(
            middleware: RequestBudgetMiddleware(timeout: .seconds(7), expiry: { _ in await probe.expire.wait() })
        )
        .get("commit") { _, _ -> Response in
            probe.started.fire()
            await Task.detached { await probe.finish.wait() }.value // not cancellable
            return .json(.object(["committed": .bool(true)]))
        }
        // Outside the middleware: how many requests wait on this connection's handler now.
        router.get("waiters") { _, context -> Response in
            let channel = context.channel
            let count = try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: ClientGoneHandler.self).waiterCount
            }.get()
            return .json(.object(["waiters": .number(Double(count))]))
        }
        let (ports, portCont) = AsyncStream.makeStream(of: Int.self)
        // An event loop of its own: NIO's shared loops also run other suites' servers and push
        // stand-ins, and a stall there long enough for the idle timeout would close a
        // connection before its request is read.
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let app = Application(
            router: router, server: .http1NoticingClientsGone(idleTimeout: idleTimeout),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { portCont.yield($0.localAddress?.port ?? 0) }, eventLoopGroupProvider: .shared(loops),
            logger: Harness.quietLogger())
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Harness.quietLogger())
        let task = Task { try await group.run() }
        var it = ports.makeAsyncIterator()
        guard let port = await it.next() else { throw CancellationError() }
        do { try await body(port) } catch {
            await group.triggerGracefulShutdown()
            try? await task.value
            try? await loops.shutdownGracefully()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
        try await loops.shutdownGracefully()
    }

    static func get(
        _ port: Int, _ route: String = "work"
    ) async throws -> (status: Int, body: String, headers: HTTPHeaders) {
        let resp = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/\(route)"), timeout: .seconds(60))
        let buf = try await resp.body.collect(upTo: 1 << 20)
        return (Int(resp.status.code), String(buffer: buf), resp.headers)
    }

    @Test("a request still working when its budget runs out is cancelled and answered 503 with a problem saying so")
    func overBudgetIs503() async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            async let answer = Self.get(port)
            await probe.started.wait()
            probe.expire.fire() // the budget runs out
            let (status, body, headers) = try await answer
            #expect(status == 503)
            #expect(headers["content-type"].first == "application/problem+json")
            let problem = try ServerJSON.parse(Data(body.utf8))
            #expect(problem["status"] == .number(503))
            #expect(problem["detail"]?.string?.contains("budget of 7.0 s") == true, "\(body)")
            #expect(problem["retryAfterSeconds"] == .number(1))
            await probe.cancelled.wait() // the work itself was cancelled (else this never returns)
        }
    }

    @Test("work that completes although its budget ran out is answered with its own result, not a 503")
    func finishedWorkIsAnswered() async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            async let answer = Self.get(port, "commit")
            await probe.started.wait()
            probe.expire.fire() // the budget runs out while the work goes on
            probe.finish.fire() // then the work completes
            let (status, body, _) = try await answer
            #expect(status == 200, "\(body)")
            #expect(body.contains("committed"))
        }
    }

    /// How a test client stops waiting for its answer.
    enum Departure: CaseIterable, Sendable, CustomStringConvertible {
        /// `close` with `SO_LINGER` 0: the connection is reset (RST).
        case reset
        /// A plain `close`: the normal way, a FIN.
        case close
        /// `shutdown(SHUT_WR)`: the client stops sending but still could read.
        case halfClose

        var description: String {
            switch self {
            case .reset: "reset"
            case .close: "close"
            case .halfClose: "half-close"
            }
        }
    }

    @Test(
        "a client that goes away cancels its request's work, however it leaves", .timeLimit(.minutes(5)),
        arguments: Departure.allCases)
    func departureCancels(_ departure: Departure) async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            // A plain socket, so that the test controls exactly how the client goes away.
            let fd = try Self.connectedSocket(port)
            let request = Array("GET /v1/work HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            #expect(request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == request.count)
            await probe.started.wait()
            switch departure {
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(fd)
            case .close:
                close(fd)
            case .halfClose:
                shutdown(fd, Int32(SHUT_WR))
            }
            await probe.cancelled.wait() // the handler saw the cancellation (else this never returns)
            if departure == .halfClose { close(fd) }
        }
    }

    @Test(
        "a connection kept alive serves request after request and keeps no waiter of those that ended",
        .timeLimit(.minutes(5)))
    func keepAliveLeavesNoWaiters() async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            probe.finish.fire() // every request finishes at once
            let fd = try Self.connectedSocket(port)
            defer { close(fd) }
            for _ in 0..<50 {
                let answer = await Self.get(fd, "/v1/work")
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            }
            let count = await Self.get(fd, "/waiters")
            #expect(count.hasSuffix(#"{"waiters":0}"#), "\(count)")
        }
    }

    /// Sends `GET path` on the open connection `fd` and reads the whole answer.
    static func get(_ fd: Int32, _ path: String) async -> String {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return "" }
        return await ConnectionLimitTests.readToClose(fd)
    }

    static func connectedSocket(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        return fd
    }
}
