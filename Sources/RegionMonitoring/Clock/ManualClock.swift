import Foundation

/// A clock that moves only when told, so tests replay hours of driving without sleeping.
///
/// ```swift
/// let clock = ManualClock()                       // manual: sleepers wait for advance(by:)
/// clock.advance(by: .seconds(30))                  // wakes every sleeper due by then, in order
/// let virtual = ManualClock(advancesOnSleep: true) // each sleep jumps `now` to its deadline
/// ```
///
/// With `advancesOnSleep`, a single driver (a ``TrackReplay``) runs as fast as the CPU
/// allows while `now` still follows the replay's schedule exactly — real time, 10× or 100×
/// — which the tests check. Thread-safe; `sleep` honours task cancellation.
public final class ManualClock: Clock, @unchecked Sendable {
    /// A point on the manual clock: an offset from its creation.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        public var offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    // Guarded by `lock` (the reason for @unchecked Sendable).
    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [Sleeper] = []
    private var nextID: UInt64 = 0
    /// Sleep ids handed out whose sleeper is not registered yet, and those of them cancelled
    /// meanwhile (a cancellation can arrive before the continuation exists).
    private var unregistered: Set<UInt64> = []
    private var cancelledEarly: Set<UInt64> = []
    private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Whether `sleep(until:)` moves `now` to the deadline itself instead of waiting.
    public let advancesOnSleep: Bool

    public init(advancesOnSleep: Bool = false) { self.advancesOnSleep = advancesOnSleep }

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are waiting in `sleep`.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    /// Suspends until at least `count` tasks are waiting in `sleep`.
    ///
    /// For tests that must know another task has reached its sleep before they advance the
    /// clock; unlike polling ``sleeperCount`` it does not spin, so it cannot starve the
    /// sleeping task on a busy executor.
    public func waitForSleepers(atLeast count: Int) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if sleepers.count >= count { return true }
                sleeperWaiters.append((count, c))
                return false
            }
            if ready { c.resume() }
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if advancesOnSleep {
            try Task.checkCancellation()
            lock.withLock { if current < deadline { current = deadline } }
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        let id: UInt64 = lock.withLock {
            nextID += 1
            unregistered.insert(nextID)
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Outcome {
                    case waiting([CheckedContinuation<Void, Never>])
                    case due, cancelled
                }
                let outcome: Outcome = lock.withLock {
                    unregistered.remove(id)
                    if cancelledEarly.remove(id) != nil { return .cancelled }
                    if deadline <= current { return .due }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    let n = sleepers.count
                    let ready = sleeperWaiters.filter { $0.count <= n }.map(\.continuation)
                    sleeperWaiters.removeAll { $0.count <= n }
                    return .waiting(ready)
                }
                switch outcome {
                case .waiting(let ready): for w in ready { w.resume() }
                case .due: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, any Error>? = lock.withLock {
                guard let i = sleepers.firstIndex(where: { $0.id == id }) else {
                    // Cancelled before the sleeper registered: it sees this and throws at once.
                    if unregistered.contains(id) { cancelledEarly.insert(id) }
                    return nil
                }
                return sleepers.remove(at: i).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper due by then, earliest first.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: max(.zero, duration))
            let ready = sleepers.filter { $0.deadline <= current }.sorted { $0.deadline < $1.deadline }
            sleepers.removeAll { $0.deadline <= current }
            return ready
        }
        for s in due { s.continuation.resume() }
    }

    /// Moves time to `instant` (no-op if it is in the past).
    public func advance(to instant: Instant) {
        advance(by: now.duration(to: instant))
    }
}
