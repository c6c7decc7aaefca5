import Foundation

/// A thread of its own that runs the closures of one SQLite connection (``SQLiteHandle``), one
/// at a time, in two lanes: the requests' work in the order it came, and the server's own
/// background work (the notification worker's) between the requests' closures.
///
/// Not a `DispatchQueue`, for two reasons:
/// - A serial queue runs on whichever of Dispatch's worker threads is free, and Linux gives a
///   new thread the scheduling policy of the thread that made it. The server's background
///   work runs at the lowest priority (``BackgroundExecutor``); when it submitted a store call
///   and Dispatch had to start a worker for it, that worker ran at the lowest priority too,
///   and every later commit that landed on it waited behind the whole machine. This thread is
///   made once, when the connection opens, and submitting to it only signals a condition,
///   which starts no thread.
/// - A queue is first come, first served: a phone's commit waited behind every notification
///   transaction queued before it.
///
/// The lanes' rule: each turn runs every request closure waiting, then at most one background
/// closure. A request waits for at most one background closure, and background work still gets
/// a turn under any load. Background work made of many steps (planning a batch, recording
/// answers) also checks ``requestWaiting`` between steps and commits early, so a request waits
/// for one step, not the batch.
final class ConnectionThread: @unchecked Sendable {
    /// Which lane a closure waits in.
    enum Lane: Sendable {
        /// Work a request waits for: first come, first served.
        case request
        /// The server's own work, run between the requests' closures.
        case background
    }

    /// A request's closure, with when it was submitted and whether background work held the
    /// connection then (for ``ConnectionTimings``).
    private struct Request {
        var job: @Sendable () -> Void
        var submitted: UInt64
        var arrivedDuringBackground: Bool
    }

    // Guarded by `condition`.
    private var requests: [Request] = []
    private var background: [@Sendable () -> Void] = []
    private var stopping = false
    private var runningBackground = false
    private var timings: ConnectionTimings?
    private let condition = NSCondition()

    /// Starts the thread. It inherits the calling thread's scheduling policy: make it from a
    /// thread at normal priority (opening a store does).
    init(name: String) {
        let thread = Thread { [self] in
            Thread.current.name = name
            runJobs()
        }
        thread.start()
    }

    /// Runs `job` in `lane`, after the jobs already waiting there.
    func submit(_ lane: Lane = .request, _ job: @escaping @Sendable () -> Void) {
        condition.lock()
        switch lane {
        case .request:
            requests.append(Request(job: job, submitted: Self.now(), arrivedDuringBackground: runningBackground))
        case .background: background.append(job)
        }
        condition.signal()
        condition.unlock()
    }

    /// Records from now on how long requests wait and background work holds the connection.
    func report(to timings: ConnectionTimings) {
        condition.lock()
        self.timings = timings
        condition.unlock()
    }

    /// Whether a request's closure is waiting for the connection. Background work made of
    /// steps checks it between steps, and commits and gives the connection back when it is set
    /// (``SQLiteSession/requestWaiting``).
    var requestWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !requests.isEmpty
    }

    /// Ends the thread once the jobs already submitted have run.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while let turn = nextTurn() {
            for request in turn.requests {
                turn.timings?.recordWait(
                    nanoseconds: Self.now() &- request.submitted,
                    arrivedDuringBackground: request.arrivedDuringBackground)
                request.job()
            }
            if let job = turn.background { runBackground(job, timings: turn.timings) }
        }
    }

    private func runBackground(_ job: @Sendable () -> Void, timings: ConnectionTimings?) {
        setRunningBackground(true)
        let start = Self.now()
        job()
        timings?.backgroundHold.recordNanoseconds(Int64(Self.now() &- start))
        setRunningBackground(false)
    }

    private func setRunningBackground(_ running: Bool) {
        condition.lock()
        runningBackground = running
        condition.unlock()
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Waits for work; `nil` once stopped with nothing left.
    private func nextTurn() -> (
        requests: [Request], background: (@Sendable () -> Void)?, timings: ConnectionTimings?
    )? {
        condition.lock()
        defer { condition.unlock() }
        while requests.isEmpty && background.isEmpty {
            if stopping { return nil }
            condition.wait()
        }
        let turn = requests
        requests.removeAll(keepingCapacity: true)
        return (turn, background.isEmpty ? nil : background.removeFirst(), timings)
    }
}
