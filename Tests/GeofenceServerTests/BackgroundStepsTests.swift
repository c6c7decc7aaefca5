import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import GeofenceServer

/// Background work in steps (planning's writes, answers' records): it commits and gives the
/// SQLite connection to a request as soon as one waits, then goes on where it stopped.
@Suite("SQLite background steps yield to a waiting request")
struct BackgroundStepsTests {
    /// Holds the connection's thread in a step until released; the test awaits the hold
    /// without blocking a thread of Swift's pool (it has one per core, and every test shares it).
    final class Gate: Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let state = NIOLockedValueBox<(entered: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

        /// On the connection's thread: says it is held, then blocks until ``release()``.
        func hold() {
            let waiter = state.withLockedValue { state in
                state.entered = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
            released.wait()
        }

        func held() async {
            await withCheckedContinuation { c in
                let entered = state.withLockedValue { state in
                    if !state.entered { state.waiter = c }
                    return state.entered
                }
                if entered { c.resume() }
            }
        }

        func release() { released.signal() }
    }

    static func store(_ db: TestDatabase) async throws -> SQLiteStore {
        let store = try #require(
            try await GeofenceServer.openStore(db.location, logger: Harness.quietLogger()) as? SQLiteStore)
        try await store.transaction { s in try s.query("CREATE TABLE steps (i INTEGER NOT NULL)") }
        return store
    }

    /// Holds the step that calls it until the test has queued a request, then waits, inside the
    /// step, until the request is in the connection's queue (it is queued from another task).
    static func holdForRequest(_ s: SQLiteSession, _ gate: Gate) {
        gate.hold()
        let deadline = Date().addingTimeInterval(30)
        while !s.requestWaiting, Date() < deadline { usleep(100) }
    }

    @Test("a request that comes during a step runs after that step, in its own transaction")
    func requestRunsBetweenSteps() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.store(db)
            let order = NIOLockedValueBox<[String]>([])
            let gate = Gate()
            async let steps: Void = store.backgroundSteps(count: 4) { s, i in
                try s.query("INSERT INTO steps (i) VALUES (?)", [.integer(i)])
                order.withLockedValue { $0.append("step \(i)") }
                if i == 1 { Self.holdForRequest(s, gate) }
            }
            await gate.held()
            // A write: `BEGIN IMMEDIATE` fails inside an open transaction, so it runs only if
            // the steps before it were committed.
            async let request: Int = store.transaction { s in
                let n = try s.query("SELECT COUNT(*) AS n FROM steps").first?.column("n")?.integer ?? -1
                order.withLockedValue { $0.append("request sees \(n)") }
                return n
            }
            gate.release()
            let (_, seen) = try await (steps, request)
            #expect(seen == 2)
            #expect(order.withLockedValue { $0 } == ["step 0", "step 1", "request sees 2", "step 2", "step 3"])
            let rows = try await store.read { s in
                try s.query("SELECT i FROM steps ORDER BY i").map { $0.column("i")?.integer }
            }
            #expect(rows == [0, 1, 2, 3])
            try await store.close()
        }
    }

    struct StepFailed: Error {}

    @Test("a step that throws rolls back its own transaction; the steps committed before it stay")
    func failureKeepsCommittedSteps() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.store(db)
            let gate = Gate()
            let steps = Task {
                try await store.backgroundSteps(count: 4) { s, i in
                    try s.query("INSERT INTO steps (i) VALUES (?)", [.integer(i)])
                    if i == 0 { Self.holdForRequest(s, gate) }
                    if i == 2 { throw StepFailed() }
                }
            }
            await gate.held()
            async let request: Void = store.read { _ in }
            gate.release()
            await #expect(throws: StepFailed.self) { try await steps.value }
            try await request
            // Step 0 was committed before the request; steps 1 and 2 shared the transaction that
            // failed; step 3 never ran.
            let rows = try await store.read { s in
                try s.query("SELECT i FROM steps ORDER BY i").map { $0.column("i")?.integer }
            }
            #expect(rows == [0])
            try await store.close()
        }
    }

    @Test("with no request waiting, every step runs in one transaction")
    func noRequestOneTransaction() async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await Self.store(db)
            // A failure in the last step takes every step with it when they shared one transaction.
            await #expect(throws: StepFailed.self) {
                try await store.backgroundSteps(count: 50) { s, i in
                    try s.query("INSERT INTO steps (i) VALUES (?)", [.integer(i)])
                    if i == 49 { throw StepFailed() }
                }
            }
            let n = try await store.read { s in
                try s.query("SELECT COUNT(*) AS n FROM steps").first?.column("n")?.integer
            }
            #expect(n == 0)
            try await store.close()
        }
    }
}
