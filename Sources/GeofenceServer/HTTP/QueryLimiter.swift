import NIOConcurrencyHelpers

/// At most ``limit`` queries of one tenant run at once; the others wait in arrival order.
///
/// What it protects: `nearby` runs on a cooperative thread while it computes; with two
/// cores, two tenants' worth of such queries could otherwise take every thread, and one
/// tenant's burst would delay every other tenant's requests and `/health`. A waiting query
/// ends when its task is cancelled (the request budget ran out, or the client went away),
/// so waiting is bounded by ``RequestBudgetMiddleware``.
final class QueryLimiter: Sendable {
    let limit: Int

    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }
    private struct Tenant {
        var running = 0
        var waiting: [Waiter] = []
    }
    private struct State {
        var tenants: [String: Tenant] = [:]
        var nextID: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())

    init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `body` once fewer than ``limit`` queries of `tenant` are running.
    func run<T: Sendable>(tenant: String, _ body: () async throws -> T) async throws -> T {
        try await acquire(tenant)
        defer { release(tenant) }
        return try await body()
    }

    private func acquire(_ tenant: String) async throws {
        let id: UInt64? = state.withLockedValue { s in
            if s.tenants[tenant, default: Tenant()].running < limit {
                s.tenants[tenant, default: Tenant()].running += 1
                return nil
            }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Outcome { case admitted, cancelled, queued }
                let outcome: Outcome = state.withLockedValue { s in
                    // Cancelled before it could queue (`onCancel` found nothing to remove).
                    if Task.isCancelled { return .cancelled }
                    if s.tenants[tenant, default: Tenant()].running < limit {
                        s.tenants[tenant, default: Tenant()].running += 1
                        return .admitted
                    }
                    s.tenants[tenant, default: Tenant()].waiting.append(Waiter(id: id, continuation: c))
                    return .queued
                }
                switch outcome {
                case .admitted: c.resume()
                case .cancelled: c.resume(throwing: CancellationError())
                case .queued: break // resumed by release() or by onCancel, whichever removes it
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLockedValue { s in
                guard let i = s.tenants[tenant]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return s.tenants[tenant]!.waiting.remove(at: i)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Hands the slot to the next waiter, or frees it.
    private func release(_ tenant: String) {
        let next: Waiter? = state.withLockedValue { s in
            guard var t = s.tenants[tenant] else { return nil }
            if t.waiting.isEmpty {
                t.running -= 1
                s.tenants[tenant] = t.running == 0 ? nil : t
                return nil
            }
            let w = t.waiting.removeFirst()
            s.tenants[tenant] = t
            return w
        }
        next?.continuation.resume()
    }
}
