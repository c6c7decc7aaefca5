import Foundation
import Glibc
import NIOConcurrencyHelpers
import NIOPosix

/// Counts the jobs one thread queues on Swift's global executor (the pool every request's
/// handler runs on), through the concurrency runtime's enqueue hook
/// (`swift_task_enqueueGlobal_hook`, include/swift/Runtime/ConcurrencyHooks.def). A background
/// thread that queues a job there can make the pool start a thread, and that thread inherits
/// the background priority for good (`BackgroundExecutor`). The watched thread is the watch's
/// own executor, so work other tests run at the same time is not counted.
final class GlobalPoolWatch: TaskExecutor {
    typealias Enqueue = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Enqueue) -> Void

    /// The watched threads and the jobs each has queued on the global executor.
    private static let counts = NIOLockedValueBox<[pthread_t: Int]>([:])

    /// Installs the hook once per process; `false` when the runtime has none or another hook is
    /// installed.
    static let installed: Bool = {
        guard let symbol = dlsym(dlopen(nil, RTLD_LAZY), "swift_task_enqueueGlobal_hook") else { return false }
        let hook = symbol.assumingMemoryBound(to: Hook?.self)
        guard hook.pointee == nil else { return false }
        hook.pointee = { job, enqueue in
            let thread = pthread_self()
            GlobalPoolWatch.counts.withLockedValue { counts in
                if let n = counts[thread] { counts[thread] = n + 1 }
            }
            enqueue(job)
        }
        return true
    }()

    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let thread: pthread_t

    init() {
        pool.start()
        let started = DispatchSemaphore(value: 0)
        let thread = NIOLockedValueBox<pthread_t?>(nil)
        pool.submit { _ in
            thread.withLockedValue { $0 = pthread_self() }
            started.signal()
        }
        started.wait()
        self.thread = thread.withLockedValue { $0! }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }

    /// How many jobs this executor's thread queued on the global executor while `body` ran on
    /// it. The return to the caller's executor afterwards is not counted.
    func count<T: Sendable>(_ body: () async throws -> T) async rethrows -> (queued: Int, value: T) {
        precondition(Self.installed, "no enqueue hook")
        return try await withTaskExecutorPreference(self) {
            Self.counts.withLockedValue { $0[thread] = 0 }
            let value = try await body()
            let queued = Self.counts.withLockedValue { $0.removeValue(forKey: thread) ?? 0 }
            return (queued, value)
        }
    }

    func shutdown() async throws { try await pool.shutdownGracefully() }
}
