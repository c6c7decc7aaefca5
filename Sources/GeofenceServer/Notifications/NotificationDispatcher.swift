import Foundation
import Logging
import ServiceLifecycle

/// Plans queued events into notifications and sends the due ones through the ``PushSender``s: a
/// `Service` that polls the store, as the webhook worker does.
///
/// Guarantees: every event committed with a matching rule and a token is planned once (the
/// queue row goes in the event's transaction and out in the planning's); each notification is
/// sent until the service accepts it, refuses it, reports its token invalid, or the retries run
/// out, each outcome in the device's log; a re-send (after a crash between the service's answer
/// and the log's update) carries the same message id and collapse id (``NotificationID``).
/// Answers map to the log as: `delivered`; `retry` → again after the later of `Retry-After`
/// and the back-off, `failed` after ``NotificationConfiguration/retry``'s attempts;
/// `tokenInvalid` → `token-invalid`, the token removed unless registered after the service's
/// time; `refused` → `refused` (logged, never retried); no sender → `unconfigured`.
public final class NotificationDispatcher: Service {
    let store: any NotificationStore
    let senders: PushSenders
    let configuration: NotificationConfiguration
    let clock: @Sendable () -> Date
    let logger: Logger
    let roundLock = AsyncLock()
    /// Events planned and notifications sent per store call.
    static let batch = 64

    public init(
        store: any NotificationStore, senders: PushSenders, configuration: NotificationConfiguration,
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.senders = senders
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// Rounds every poll interval, the first one interval after start (a test driving
    /// ``deliverDue()`` itself, with a long interval, never races the worker); a last round on
    /// graceful shutdown.
    public func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.pollInterval) }
            guard !Task.isShuttingDownGracefully, !Task.isCancelled else { break }
            do { _ = try await deliverDue() } catch {
                logger.error("notification round failed", metadata: ["error": "\(error)"])
            }
        }
        _ = try? await deliverDue()
    }

    /// Plans every queued event, then sends every notification due now (concurrently within a
    /// batch); returns how many sends were made.
    @discardableResult
    public func deliverDue() async throws -> Int {
        try await roundLock.withLock {
            while try await self.store.planNotifications(now: self.clock(), limit: Self.batch) == Self.batch {}
            var sends = 0
            while true {
                let due = try await self.store.dueNotifications(now: self.clock(), limit: Self.batch)
                sends += due.count
                await withTaskGroup(of: Void.self) { group in
                    for d in due { group.addTask { await self.send(d) } }
                }
                if due.count < Self.batch { break }
            }
            return sends
        }
    }

    func send(_ d: DueNotification) async {
        let outcome: NotificationOutcome
        switch senders.sender(for: d.message.destination) {
        case .failure(let why):
            outcome = .ended(state: "unconfigured", reason: why.reason)
        case .success(let sender):
            outcome = record(await sender.send(d.message), for: d)
        }
        do { try await store.recordNotification(id: d.id, outcome: outcome, now: clock()) } catch {
            logger.error("cannot record a notification", metadata: ["notification": "\(d.id)", "error": "\(error)"])
        }
    }

    /// What the log records for the service's answer.
    func record(_ answer: PushOutcome, for d: DueNotification) -> NotificationOutcome {
        switch answer {
        case .delivered(let serviceID):
            return .delivered(serviceID: serviceID)
        case .tokenInvalid(let reason, let since):
            logger.info("push token invalid", metadata: ["device": "\(d.device)", "reason": "\(reason)"])
            return .tokenInvalid(reason: reason, invalidSince: since)
        case .refused(let reason):
            logger.warning(
                "push refused", metadata: ["notification": "\(d.id)", "device": "\(d.device)", "reason": "\(reason)"])
            return .ended(state: "refused", reason: reason)
        case .retry(let reason, let retryAfter):
            guard let backoff = configuration.retry.delay(afterAttempt: d.attempts + 1) else {
                return .ended(state: "failed", reason: reason)
            }
            let asked = min(max(retryAfter?.seconds ?? 0, 0), configuration.maximumRetryAfterSeconds)
            return .retry(reason: reason, nextAttempt: clock().addingTimeInterval(max(asked, backoff.seconds)))
        }
    }
}
