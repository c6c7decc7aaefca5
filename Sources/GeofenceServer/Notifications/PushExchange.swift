import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with a push service, bounded as a whole. AsyncHTTPClient's deadline covers
/// the request and the answer's head, not the wait for the rest of the body: a service that
/// stalled mid-answer would hold the send, and its slot in the worker's window, for good.
struct PushExchange: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    /// Sends `request` and reads the answer (at most `maximumBodyBytes`); throws
    /// `HTTPClientError.deadlineExceeded` when the whole exchange takes longer than `timeout`.
    /// The caller never waits past the timeout: an exchange that does not end when cancelled
    /// (an answer stalled mid-body) is cancelled and left to end on its own.
    static func run(
        _ request: HTTPClientRequest, on client: HTTPClient, timeout: Duration, maximumBodyBytes: Int
    ) async throws -> PushExchange {
        // Pushes are background work: their async glue runs on the background thread too.
        try await DeadlineRace.run(deadline: timeout, on: BackgroundExecutor.shared) {
            let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
            let body = try await response.body.collect(upTo: maximumBodyBytes)
            return PushExchange(status: Int(response.status.code), headers: response.headers, body: body)
        }
    }
}

/// Resumes a continuation with whichever ends first, some work or its deadline, and never waits
/// for the other (a task group would: it awaits every child, and a child that ignores its
/// cancellation holds it). The loser is cancelled: the deadline's timer ends at once, the work
/// when it notices.
final class DeadlineRace<Value: Sendable>: @unchecked Sendable {
    /// `work`'s value, or `HTTPClientError.deadlineExceeded` once `deadline` has passed (or
    /// `CancellationError` when the caller is cancelled), without waiting for `work` to end.
    /// `work` runs in a task of its own, on `executor` (an unstructured task does not inherit
    /// the caller's executor preference).
    static func run(
        deadline: Duration, on executor: (any TaskExecutor)? = nil,
        _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let race = DeadlineRace<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                race.start($0, deadline: deadline, on: executor, work: work)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    // Safety: every stored property is read and written under `lock` only.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var tasks: [Task<Void, Never>] = []
    private var outcome: Result<Value, any Error>?

    /// Starts `work` and a timer of `deadline`; `continuation` is resumed once, by the first.
    func start(
        _ continuation: CheckedContinuation<Value, any Error>, deadline: Duration, on executor: (any TaskExecutor)?,
        work: @escaping @Sendable () async throws -> Value
    ) {
        let endedEarly: Result<Value, any Error>? = lock.withLock {
            if let outcome { return outcome } // cancelled before it started
            self.continuation = continuation
            return nil
        }
        if let endedEarly {
            continuation.resume(with: endedEarly)
            return
        }
        let worker = Task(executorPreference: executor) {
            do { self.finish(.success(try await work())) } catch { self.finish(.failure(error)) }
        }
        // On `executor` too: a task made without a preference is queued on Swift's pool, and a
        // background thread must not queue work there (``BackgroundExecutor``'s invariant).
        let timer = Task(executorPreference: executor) {
            guard (try? await Task.sleep(for: deadline)) != nil else { return }
            self.finish(.failure(HTTPClientError.deadlineExceeded))
        }
        let alreadyOver = lock.withLock {
            tasks = [worker, timer]
            return outcome != nil
        }
        if alreadyOver { for task in [worker, timer] { task.cancel() } }
    }

    /// Ends the race with `result` unless it has ended; cancels what still runs.
    func finish(_ result: Result<Value, any Error>) {
        let (waiting, running): (CheckedContinuation<Value, any Error>?, [Task<Void, Never>]) = lock.withLock {
            guard outcome == nil else { return (nil, []) }
            outcome = result
            defer {
                continuation = nil
                tasks = []
            }
            return (continuation, tasks)
        }
        for task in running { task.cancel() }
        waiting?.resume(with: result)
    }
}
