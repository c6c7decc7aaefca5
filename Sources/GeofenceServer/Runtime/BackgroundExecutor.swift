import Foundation
import Glibc
import NIOConcurrencyHelpers
import NIOPosix

/// A thread for the server's own background work (planning and sending notifications): a task
/// executor that runs its jobs, in order, on one thread of its own below the requests'
/// threads in priority, off Swift's cooperative pool.
///
/// The cooperative pool has a thread per core, and every API request's handler runs there. A
/// burst of 10,000 notifications keeps a pool thread busy with templates, JSON and request
/// building for whole milliseconds at a time, and the phones' requests queue behind it. Here
/// that work runs when no request's thread wants the core.
///
/// `geofence serve` runs the background threads at Linux's `SCHED_IDLE`
/// (``BackgroundPriority/useIdle()``): a request's thread that wakes takes the core at once.
/// A nice value is not enough for that: the scheduler lets a running thread of any nice value
/// finish its time slice (about a millisecond) before a thread that wakes. But a thread at
/// `SCHED_IDLE` gets nothing while every core is busy, for as long as they are, so a process
/// that embeds the server beside its own work (the tests: hundreds of them in parallel) keeps
/// the default, nice ``niceValue``, which yields a core's share but never stalls.
///
/// Invariant: a thread made by a background thread inherits its priority, and Linux lets no
/// unprivileged process raise it again. So background threads must never start one: they hand
/// store calls to the connection's own thread (``ConnectionThread``), resume their own tasks
/// here, and queue nothing on Dispatch or Swift's pool. `BackgroundPriorityTests` checks the
/// threads of a process that has sent a burst. One exception is out of our hands: when the push
/// client connects, SwiftNIO resolves the service's host name on a Dispatch queue, and a worker
/// Dispatch starts for it then is lowered too. Such a worker serves only Dispatch's own queues,
/// which no request's work uses (the pool that runs tasks is separate).
final class BackgroundExecutor: TaskExecutor {
    /// The one instance the server's background workers share.
    static let shared = BackgroundExecutor()

    /// The name of every background thread: this executor's and the push client's event loop.
    static let threadName = "geofence-bg"

    /// The background threads' nice value, unless ``BackgroundPriority/useIdle()`` was called
    /// (or `SCHED_IDLE` is refused: a sandbox's seccomp filter).
    static let niceValue: Int32 = 10

    /// Whether the background threads run at `SCHED_IDLE`.
    fileprivate static let idle = NIOLockedValueBox(false)

    private let pool: NIOThreadPool

    private init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        pool.submit { _ in Self.lowerCurrentThreadPriority() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }

    /// Gives the calling thread the background priority and ``threadName``. Linux keeps both
    /// per thread; pid 0 is the calling thread.
    static func lowerCurrentThreadPriority() {
        var parameters = sched_param(sched_priority: 0)
        if !idle.withLockedValue({ $0 }) || sched_setscheduler(0, schedIdle, &parameters) != 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceValue)
        }
        Thread.current.name = threadName
    }

    /// Waits `duration` on a timer of the background event loop (the push client's), not a
    /// Dispatch timer: a background thread that asked Dispatch for one could make Dispatch
    /// start a thread that inherits its priority. A task on this executor resumes here
    /// afterwards. Throws `CancellationError` when the task is cancelled first.
    static func sleep(for duration: Duration) async throws {
        let timer = PushClient.eventLoopGroup.next().scheduleTask(in: .nanoseconds(duration.nanoseconds)) {}
        do {
            try await withTaskCancellationHandler {
                try await timer.futureResult.get()
            } onCancel: {
                timer.cancel()
            }
        } catch {
            throw CancellationError()
        }
    }

    /// Runs `body` on the executor's thread (lowering it again, for one).
    fileprivate func runOnThread(_ body: @escaping @Sendable () -> Void) {
        pool.submit { _ in body() }
    }

    /// `SCHED_IDLE`, which Glibc's module map leaves out (it is behind `_GNU_SOURCE`).
    static let schedIdle: Int32 = 5

    /// Whether the calling thread runs at background priority (for tests of where work runs).
    static var currentThreadIsBackground: Bool {
        sched_getscheduler(0) == schedIdle || getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) > 0
    }
}

/// The priority of the server's background work (planning and sending notifications).
public enum BackgroundPriority {
    /// Runs the background threads at Linux's `SCHED_IDLE` from now on: they take a core only
    /// when no other thread of the machine wants it. For a process that serves requests and
    /// little else, as `geofence serve` does; under a load that keeps every core busy,
    /// notifications wait until it eases. Cannot be undone: Linux lets no unprivileged process
    /// raise a thread's priority again.
    public static func useIdle() {
        BackgroundExecutor.idle.withLockedValue { $0 = true }
        BackgroundExecutor.shared.runOnThread { BackgroundExecutor.lowerCurrentThreadPriority() }
        PushClient.eventLoopGroup.next().execute { BackgroundExecutor.lowerCurrentThreadPriority() }
    }
}
