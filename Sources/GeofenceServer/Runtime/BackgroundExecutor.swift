import Glibc
import NIOPosix

/// A thread for the server's own background work (planning and sending notifications): a task
/// executor that runs its jobs, in order, on one thread of its own at nice ``niceValue``, off
/// Swift's cooperative pool.
///
/// The cooperative pool has a thread per core, and every API request's handler runs there. A
/// burst of 10,000 notifications keeps a pool thread busy with templates, JSON and request
/// building for whole milliseconds at a time, and the phones' requests queue behind it. Here
/// that work takes its turn from the operating system instead, below the requests. (Dispatch's
/// utility QoS is only nice 2 on Linux: too little to matter on a busy machine.)
final class BackgroundExecutor: TaskExecutor {
    /// The one instance the server's background workers share.
    static let shared = BackgroundExecutor()

    /// The nice value of the background threads: this executor's and the push client's event
    /// loop.
    static let niceValue: Int32 = 10

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

    /// Lowers the calling thread's scheduling priority to ``niceValue``: Linux keeps nice per
    /// thread, and `who` 0 is the calling thread. A failure leaves the thread as it was.
    static func lowerCurrentThreadPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceValue)
    }

    /// The calling thread's nice value (for tests of where work runs).
    static var currentThreadNice: Int32 {
        errno = 0
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }
}
