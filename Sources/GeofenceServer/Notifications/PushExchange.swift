import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with a push service, bounded as a whole: AsyncHTTPClient's request
/// deadline covers the request and the whole answer, body included, so a service that stalls
/// mid-answer is given up at the timeout.
///
/// Through the client's `EventLoopFuture` interface, not its `async` one: the whole exchange
/// runs on the push client's event loop, and only the answer comes back to the caller's task.
/// The `async` interface starts an unstructured task of its own for each request, queued on
/// Swift's global pool; the worker's sends are background work, and a thousand pushes a second
/// would wake that pool's threads, which run at the phones' priority, a thousand times a
/// second (``BackgroundExecutor``).
struct PushExchange: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    /// Sends `request` and reads the answer (at most `maximumBodyBytes`); throws
    /// `HTTPClientError.deadlineExceeded` when the whole exchange takes longer than `timeout`,
    /// and ends the exchange when the caller's task is cancelled.
    static func run(
        _ request: HTTPClient.Request, on client: HTTPClient, timeout: Duration, maximumBodyBytes: Int
    ) async throws -> PushExchange {
        let exchange = client.execute(
            request: request, delegate: ResponseAccumulator(request: request, maxBodySize: maximumBodyBytes),
            deadline: .now() + .nanoseconds(timeout.nanoseconds))
        let response = try await withTaskCancellationHandler {
            try await exchange.futureResult.get()
        } onCancel: {
            exchange.cancel()
        }
        return PushExchange(
            status: Int(response.status.code), headers: response.headers, body: response.body ?? ByteBuffer())
    }
}
