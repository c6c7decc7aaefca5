import Dispatch
import Glibc

/// A thread for the server's own background work (planning and sending notifications): a task
/// executor that runs its jobs, in order, on one serial Dispatch queue at utility QoS, off
/// Swift's cooperative pool.
///
/// The cooperative pool has a thread per core, and every API request's handler runs there. A
/// burst of 10,000 notifications keeps a pool thread busy with templates, JSON and TLS-bound
/// request building for whole milliseconds at a time, and the phones' requests queue behind it.
/// Here that work takes its turn from the operating system instead, below the pool's threads
/// (utility QoS is a higher nice value on Linux), so a request goes first.
final class BackgroundExecutor: TaskExecutor {
    /// The one instance the server's background workers share.
    static let shared = BackgroundExecutor()

    private static let marker = DispatchSpecificKey<Bool>()
    private let queue: DispatchQueue

    private init() {
        queue = DispatchQueue(label: "geofence.background", qos: .utility)
        queue.setSpecific(key: Self.marker, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Whether the caller runs on the background queue (for tests of where work runs).
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    /// The nice value given to other background threads (an event loop of the push client), to
    /// match utility QoS's place below the pool.
    static let niceValue: Int32 = 10

    /// Lowers the calling thread's scheduling priority to ``niceValue``: Linux keeps nice per
    /// thread, and `who` 0 is the calling thread. A failure leaves the thread as it was.
    static func lowerCurrentThreadPriority() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceValue)
    }
}
