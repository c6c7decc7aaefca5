import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Delivers outbox events to webhook endpoints: a `Service` that polls the store for due
/// deliveries and POSTs each event's JSON with `Geofence-Event-Id`, `Geofence-Signature`
/// and `Geofence-Attempt` headers.
///
/// Guarantees: at-least-once per (event, endpoint); a delivery is marked `delivered` only on
/// a 2xx answer and is never sent again after that; other answers and transport errors are
/// retried on ``RetryPolicy``'s exponential schedule until `maxAttempts`, then marked
/// `failed`. A receiver that dedups on the event id sees each event once. Rounds run one at
/// a time, so one instance never sends the same delivery twice concurrently.
///
/// On graceful shutdown it finishes the round in progress and runs one last round (flush).
public final class WebhookDispatcher: Service {
    let store: any ServerStore
    let client: HTTPClient
    let retry: RetryPolicy
    let pollInterval: Duration
    let timeout: Duration
    let clock: @Sendable () -> Date
    let logger: Logger
    let metrics: ServerMetrics?
    let roundLock = AsyncLock()

    public convenience init(
        store: any ServerStore, client: HTTPClient = .shared, retry: RetryPolicy,
        pollInterval: Duration, timeout: Duration = .seconds(10),
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.init(
            store: store, client: client, retry: retry, pollInterval: pollInterval, timeout: timeout,
            clock: clock, logger: logger, metrics: nil)
    }

    init(
        store: any ServerStore, client: HTTPClient, retry: RetryPolicy, pollInterval: Duration, timeout: Duration,
        clock: @escaping @Sendable () -> Date, logger: Logger, metrics: ServerMetrics?
    ) {
        self.store = store
        self.client = client
        self.retry = retry
        self.pollInterval = pollInterval
        self.timeout = timeout
        self.clock = clock
        self.logger = logger
        self.metrics = metrics
    }

    /// Rounds every `pollInterval`, the first one interval after start (so a test that drives
    /// ``deliverDue()`` itself, with a long interval, never races the worker).
    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.pollInterval) }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled else { break }
            do { _ = try await deliverDue() } catch {
                logger.error("webhook round failed", metadata: ["error": "\(error)"])
            }
        }
        // Flush: one last round for what is due now.
        _ = try? await deliverDue()
    }

    /// Attempts every delivery due now (in batches of 64, concurrently within a batch);
    /// returns how many attempts were made.
    @discardableResult
    public func deliverDue() async throws -> Int {
        try await roundLock.withLock {
            var attempts = 0
            while true {
                let due = try await self.store.dueDeliveries(now: self.clock(), limit: 64)
                if due.isEmpty { break }
                attempts += due.count
                await withTaskGroup(of: Void.self) { group in
                    for d in due { group.addTask { await self.attempt(d) } }
                }
                if due.count < 64 { break }
            }
            return attempts
        }
    }

    func attempt(_ d: DueDelivery) async {
        let now = clock()
        var request = HTTPClientRequest(url: d.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "geofence-webhooks/1")
        request.headers.add(name: WebhookSignature.eventIDHeader, value: d.eventID)
        request.headers.add(name: "Geofence-Attempt", value: String(d.attempts + 1))
        request.headers.add(
            name: WebhookSignature.header,
            value: WebhookSignature.header(secret: d.secret, timestamp: Int(now.timeIntervalSince1970), body: d.body))
        request.body = .bytes(ByteBuffer(data: d.body))
        let outcome: DeliveryOutcome
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)))
            _ = try? await response.body.collect(upTo: 64 << 10)
            let code = Int(response.status.code)
            if (200..<300).contains(code) {
                outcome = .delivered(status: code)
            } else {
                outcome = failure(d, status: code, error: "HTTP \(code)")
            }
        } catch {
            outcome = failure(d, status: nil, error: "\(error)")
        }
        switch outcome {
        case .delivered: metrics?.delivered.increment()
        case .failed(_, _, let next):
            (next == nil ? metrics?.deliveriesAbandoned : metrics?.deliveryFailures)?.increment()
        }
        do { try await store.recordAttempt(deliveryID: d.id, outcome: outcome, now: clock()) } catch {
            logger.error("cannot record webhook attempt", metadata: ["delivery": "\(d.id)", "error": "\(error)"])
        }
    }

    func failure(_ d: DueDelivery, status: Int?, error: String) -> DeliveryOutcome {
        let next = retry.delay(afterAttempt: d.attempts + 1).map { clock().addingTimeInterval($0.seconds) }
        logger.info(
            "webhook attempt failed",
            metadata: ["event": "\(d.eventID)", "attempt": "\(d.attempts + 1)", "error": "\(error)"])
        return .failed(status: status, error: String(error.prefix(500)), nextAttempt: next)
    }
}
