import Dispatch

/// The drive harnesses' own thread: a task executor that runs every job it is given, in order,
/// on one serial Dispatch queue, never on Swift's cooperative pool.
///
/// A drive test feeds a planner thousands of fixes; each fix hops from the harness to the
/// planner actor and back, which on the cooperative pool keeps one of its threads (one per
/// core) busy for the whole drive. On a 2-core machine two drives at once left no thread for the
/// in-process servers of other suites, whose clients then missed their real-time deadlines.
/// Under this executor (the `.drive` test trait, or ``withDriveExecutor(isolation:_:)``) the
/// harness, the default actors it calls (the planner, its stores) and their child tasks run
/// here, so the pool stays free; the operating system shares the cores between this thread and
/// the pool. The queue's utility QoS puts the thread below the pool's on Linux (a higher nice
/// value), so a server's requests go first; background QoS starved the drives on a busy machine.
///
///     @Suite(.drive) struct MyDriveTests { … }
///
/// Every drive of a test run shares the one thread: drives run interleaved, not side by side,
/// which bounds what they take from the rest of the run to one core.
public final class DriveExecutor: TaskExecutor {
    /// The one instance every drive test uses.
    public static let shared = DriveExecutor()

    private static let marker = DispatchSpecificKey<Bool>()
    private let queue: DispatchQueue

    private init() {
        queue = DispatchQueue(label: "geofence.tests.drives", qos: .utility)
        queue.setSpecific(key: Self.marker, value: true)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Whether the caller runs on the drive thread (for tests of where drives run).
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }
}

/// Runs `body`, its child tasks and the default actors it calls on ``DriveExecutor/shared``.
public func withDriveExecutor<T, Failure: Error>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
) async throws(Failure) -> T {
    try await withTaskExecutorPreference(DriveExecutor.shared, isolation: isolation, operation: body)
}
