/// A FIFO lock for async code: holds across suspension points, which an actor alone does not
/// (actors are re-entrant). Used to keep a database transaction or a tenant's engine update
/// exclusive while it awaits I/O.
package actor AsyncLock {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    package init() {}

    package func lock() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    package func unlock() {
        if waiters.isEmpty { locked = false } else { waiters.removeFirst().resume() }
    }

    /// Runs `body` holding the lock.
    package nonisolated func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await lock()
        do {
            let r = try await body()
            await unlock()
            return r
        } catch {
            await unlock()
            throw error
        }
    }
}
