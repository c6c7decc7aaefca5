import Foundation
import Glibc
import NIOPosix

/// A thread for the server's own background work (planning and sending notifications): a task
/// executor that runs its jobs, in order, on one thread of its own at the lowest scheduling
/// priority, off Swift's cooperative pool.
///
/// The cooperative pool has a thread per core, and every API request's handler runs there. A
/// burst of 10,000 notifications keeps a pool thread busy with templates, JSON and request
/// building for whole milliseconds at a time, and the phones' requests queue behind it. Here
/// that work runs when no request's thread wants the core.
///
/// The priority is Linux's `SCHED_IDLE`: a request's thread that wakes takes the core at once.
/// A nice value is not enough: the scheduler lets a running thread of any nice value finish
/// its time slice (about a millisecond) before a thread that wakes, and Dispatch's utility QoS
/// is only nice 2. Under a load that keeps every core busy with requests, background work
/// waits (docs/notifications.md, "Priority").
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
    static let threadName = "geofence-idle"

    /// The nice value where `SCHED_IDLE` is refused (a sandbox's seccomp filter).
    static let fallbackNice: Int32 = 19

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

    /// Gives the calling thread the lowest priority and ``threadName``. Linux keeps both per
    /// thread; pid 0 is the calling thread.
    static func lowerCurrentThreadPriority() {
        var parameters = sched_param(sched_priority: 0)
        if sched_setscheduler(0, schedIdle, &parameters) != 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, fallbackNice)
        }
        Thread.current.name = threadName
    }

    /// `SCHED_IDLE`, which Glibc's module map leaves out (it is behind `_GNU_SOURCE`).
    static let schedIdle: Int32 = 5

    /// Whether the calling thread runs at background priority (for tests of where work runs).
    static var currentThreadIsBackground: Bool {
        sched_getscheduler(0) == schedIdle || getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) > 0
    }
}
