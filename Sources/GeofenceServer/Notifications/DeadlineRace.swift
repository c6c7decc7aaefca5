import Foundation

/// Resumes a continuation with whichever ends first, some work or its deadline, and never waits
/// for the other (a task group would: it awaits every child, and a child that ignores its
/// cancellation holds it). The loser is cancelled: the deadline's timer ends at once, the work
/// when it notices.
final class DeadlineRace<Value: Sendable>: @unchecked Sendable {
    /// The error of a race the deadline won.
    struct Exceeded: Error {}

    /// `work`'s value, or ``Exceeded`` once `deadline` has passed (or
    /// `CancellationError` when the caller is cancelled), without waiting for `work` to end.
    /// `work` and the timer run in tasks of their own on the background executor (an
    /// unstructured task does not inherit the caller's executor preference), the timer on the
    /// background event loop (``BackgroundExecutor/sleep(for:)``).
    static func run(deadline: Duration, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let race = DeadlineRace<Value>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                race.start($0, deadline: deadline, work: work)
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
        _ continuation: CheckedContinuation<Value, any Error>, deadline: Duration,
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
        // Both on the background executor: a task made without a preference is queued on Swift's
        // pool, and a background thread must not queue work there (``BackgroundExecutor``'s
        // invariant).
        let worker = Task(executorPreference: BackgroundExecutor.shared) {
            do { self.finish(.success(try await work())) } catch { self.finish(.failure(error)) }
        }
        let timer = Task(executorPreference: BackgroundExecutor.shared) {
            guard (try? await BackgroundExecutor.sleep(for: deadline)) != nil else { return }
            self.finish(.failure(Exceeded()))
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
