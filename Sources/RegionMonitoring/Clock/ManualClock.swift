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

    /// Whether `sleep(until:)` moves `now` to the deadline itself instead of waiting.
    public let advancesOnSleep: Bool

    public init(advancesOnSleep: Bool = false) { self.advancesOnSleep = advancesOnSleep }

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are waiting in `sleep`.
    public var sleeperCount: Int { lock.withLock { sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        if advancesOnSleep {
            lock.withLock { if current < deadline { current = deadline } }
            await Task.yield()
            try Task.checkCancellation()
            return
        }
        let id: UInt64 = lock.withLock { nextID += 1; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let due: Bool = lock.withLock {
                    if deadline <= current { return true }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return false
                }
                if due { c.resume() }
            }
        } onCancel: {
            let c: CheckedContinuation<Void, any Error>? = lock.withLock {
                guard let i = sleepers.firstIndex(where: { $0.id == id }) else { return nil }
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
