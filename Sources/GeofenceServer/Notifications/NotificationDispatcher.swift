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
/// time; `refused` → `refused` (logged, never retried); no sender → `unconfigured`. Before
/// each send, first or retried, the device's settings and the time are checked again
/// (``NotificationPlanner/checkBeforeSending(_:now:)``): `dropped` (`opted-out`, `expired`,
/// `quiet-hours`), or held until quiet hours end with no attempt counted.
public final class NotificationDispatcher: Service {
    let store: any NotificationStore
    let senders: PushSenders
    let configuration: NotificationConfiguration
    let clock: @Sendable () -> Date
    let logger: Logger
    let roundLock = AsyncLock()
    /// Events planned per store call.
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
    /// graceful shutdown, given up after ``NotificationConfiguration/lastRoundLimit``.
    ///
    /// The whole loop runs on the background executor and sleeps on the background event loop:
    /// a round that returned to Swift's pool would queue its next job there from a background
    /// thread, and a pool thread started for it would inherit the background priority
    /// (``BackgroundExecutor``'s invariant). Only the return to the caller, once, at shutdown,
    /// goes back to the pool.
    public func run() async throws {
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                try? await cancelWhenGracefulShutdown {
                    try await BackgroundExecutor.sleep(for: self.configuration.pollInterval)
                }
                guard !Task.isShuttingDownGracefully, !Task.isCancelled else { break }
                do { _ = try await deliverDue() } catch {
                    logger.error("notification round failed", metadata: ["error": "\(error)"])
                }
            }
            // With a push service unreachable and thousands of notifications due, the last round
            // would hold the shutdown for their timeouts. What it leaves is leased, and sent
            // again with the same ids when the lease ends.
            _ = try? await DeadlineRace.run(deadline: configuration.lastRoundLimit) { try await self.deliverDue() }
        }
    }

    /// Plans every queued event, then sends every notification due now, at most
    /// ``NotificationConfiguration/sendsInFlight`` at a time; returns how many sends were made.
    @discardableResult
    public func deliverDue() async throws -> Int {
        // On the background executor, so that a burst's planning and sends take their turn after
        // the API's requests (``BackgroundExecutor``).
        try await withTaskExecutorPreference(BackgroundExecutor.shared) {
            try await roundLock.withLock {
                while try await self.store.planNotifications(now: self.clock(), limit: Self.batch) == Self.batch {}
                return try await self.sendDue()
            }
        }
    }

    /// A sliding window of sends: each finished send frees a slot, and once half the window is
    /// free the worker records the answers that freed them, in one transaction, and leases that
    /// many more. What it leases starts at once, so no lease runs out while a notification waits
    /// its turn here; one slow service answer holds one slot, not the round. Once nothing more
    /// is due, each answer is recorded as it comes.
    ///
    /// An answer waits in memory for at most half a window of others: a crash meanwhile loses
    /// the record, not the notification, which is sent again with the same ids when its lease
    /// ends.
    private func sendDue() async throws -> Int {
        let window = max(1, configuration.sendsInFlight)
        let refill = max(1, window / 2)
        return try await withThrowingTaskGroup(of: RecordedOutcome?.self) { group in
            var inFlight = 0
            var sends = 0
            var exhausted = false
            var answered: [RecordedOutcome] = []
            while !exhausted || inFlight > 0 {
                if !exhausted, window - inFlight >= refill {
                    await self.flush(&answered)
                    let free = window - inFlight
                    let due = try await self.store.dueNotifications(now: self.clock(), limit: free)
                    exhausted = due.count < free
                    for d in due { group.addTask { await self.send(d) } }
                    inFlight += due.count
                    sends += due.count
                    continue
                }
                if let outcome = try await group.next(), let outcome { answered.append(outcome) }
                inFlight -= 1
                if exhausted { await self.flush(&answered) }
            }
            await self.flush(&answered)
            return sends
        }
    }

    /// Sends one notification; what the log should record of it, or `nil` for a send cut short
    /// by the round's cancellation (its lease ends and it is sent again, with the same ids: an
    /// attempt the shutdown interrupted is not the service's failure).
    func send(_ d: DueNotification) async -> RecordedOutcome? {
        switch NotificationPlanner.checkBeforeSending(d, now: clock()) {
        case .send: break
        case .drop(let reason): return RecordedOutcome(id: d.id, outcome: .ended(state: "dropped", reason: reason))
        case .hold(let until): return RecordedOutcome(id: d.id, outcome: .held(until: until))
        }
        let outcome: NotificationOutcome
        switch senders.sender(for: d.message.destination) {
        case .failure(let why):
            outcome = .ended(state: "unconfigured", reason: why.reason)
        case .success(let sender):
            let answer = await sender.send(d.message)
            if Task.isCancelled { return nil }
            outcome = record(answer, for: d)
        }
        await Failpoints.reach(.notificationAfterSend, detail: "message \(d.message.id.uuidString.lowercased())")
        return RecordedOutcome(id: d.id, outcome: outcome)
    }

    /// Records `answered` and empties it. On failure the notifications not yet recorded stay
    /// leased and are sent again, with the same ids, when the lease ends.
    private func flush(_ answered: inout [RecordedOutcome]) async {
        guard !answered.isEmpty else { return }
        defer { answered.removeAll(keepingCapacity: true) }
        do { try await store.recordNotifications(answered.sorted { $0.id < $1.id }, now: clock()) } catch {
            logger.error(
                "cannot record notifications",
                metadata: ["notifications": "\(answered.map(\.id))", "error": "\(error)"])
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
