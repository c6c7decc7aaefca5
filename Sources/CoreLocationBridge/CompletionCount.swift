/// How many pieces of work an actor has finished, and the callers waiting for a count: the
/// seam behind the backends' `settle()` calls, which let tests (and apps' tests) wait until what
/// was sent so far has been handled. Used from one actor only; a value, so it lives in the
/// actor's state.
struct CompletionCount {
    private(set) var finished = 0
    private var waiters: [(target: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// One more piece finished; the callers waiting for this count resume.
    mutating func finishOne() {
        finished += 1
        let due = waiters.filter { $0.target <= finished }
        waiters.removeAll { $0.target <= finished }
        for waiter in due { waiter.continuation.resume() }
    }

    /// Whether `target` pieces have finished.
    func reached(_ target: Int) -> Bool { finished >= target }

    /// Resumes `continuation` once `target` pieces have finished (at once if they have).
    mutating func resume(_ continuation: CheckedContinuation<Void, Never>, at target: Int) {
        if reached(target) { return continuation.resume() }
        waiters.append((target, continuation))
    }
}
