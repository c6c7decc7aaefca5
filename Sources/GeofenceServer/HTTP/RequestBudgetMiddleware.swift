import Hummingbird
import NIOCore

/// Gives each request a time budget and ties its work to the client's connection.
///
/// The handler runs in a child task, raced against a timer of ``timeout`` and against the
/// client going away (its connection closing, or its input ending: ``ClientGoneHandler``).
/// When the timer wins, the handler is cancelled: a handler that stops because of it (a query
/// waiting for its turn in ``QueryLimiter``, a store call, a sleep) ends the request with a
/// **503** problem saying the budget ran out (`Retry-After: 1`); one that finishes anyway (its
/// work was already committed) is answered normally — the client must not be told "failed"
/// about something that happened. When the client goes away, the handler is cancelled the same
/// way and nothing is answered.
///
/// Fix ingestion and the event stream are not wrapped: a fix batch is bounded by
/// `maxBatchSize` and, once queued for its commit, must be answered with the commit's outcome
/// (a retry is safe, docs/server.md); the stream has its own `timeout`.
struct RequestBudgetMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let timeout: Duration
    /// Returns when a request's budget of `timeout` has run out: a sleep, or in tests a gate
    /// the test opens (no test waits for real time).
    var expiry: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

    private enum Outcome: Sendable {
        case finished(Result<Response, any Error>)
        case timedOut
        case clientGone
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if path.hasSuffix("/locations") || path.hasSuffix("/events/stream") { return try await next(request, context) }
        let timeout = self.timeout
        let expiry = self.expiry
        let channel = context.channel
        // `next` is neither escaping nor @Sendable: it is called only from the first child task,
        // and the group waits for every child before `withoutActuallyEscaping` returns.
        return try await withoutActuallyEscaping(next) { next in
            let handler = UnsafeTransfer(next)
            return try await withThrowingTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    do { return .finished(.success(try await handler.value(request, context))) } catch {
                        return .finished(.failure(error))
                    }
                }
                group.addTask {
                    await expiry(timeout)
                    return .timedOut
                }
                group.addTask {
                    await ClientGoneHandler.waitUntilGone(on: channel)
                    return .clientGone
                }
                let first = try await group.next()!
                switch first {
                case .finished(let result):
                    group.cancelAll()
                    return try result.get()
                case .timedOut, .clientGone:
                    group.cancelAll()
                    while let o = try await group.next() {
                        guard case .finished(let result) = o else { continue }
                        switch result {
                        case .success(let response): return response
                        case .failure(let error):
                            if case .clientGone = first { throw error }
                            if error is CancellationError || Task.isCancelled {
                                throw Problem(
                                    status: .serviceUnavailable,
                                    detail:
                                        "the request did not finish within the server's budget of \(timeout.seconds) s; retry later",
                                    extensions: ["retryAfterSeconds": .number(1)])
                            }
                            throw error
                        }
                    }
                    throw CancellationError()
                }
            }
        }
    }
}

/// Moves a non-Sendable value into a child task that is the only one to use it.
struct UnsafeTransfer<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
