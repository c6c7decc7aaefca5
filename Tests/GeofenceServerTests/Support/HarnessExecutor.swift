import NIOPosix

/// A thread of the tests' own for harnesses that time what they wait for. A full test run keeps
/// both threads of Swift's pool busy with other suites for tens of seconds at a time; a harness
/// whose sends, answers and clock all resumed there would see an answer that came in time only
/// after its own deadline had passed. Tasks that prefer this executor (and their child tasks)
/// resume here instead.
final class HarnessExecutor: TaskExecutor {
    static let shared = HarnessExecutor()

    private let pool: NIOThreadPool

    private init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { _ in job.runSynchronously(on: executor) }
    }
}
