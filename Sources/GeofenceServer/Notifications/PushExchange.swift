import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// One HTTP exchange with a push service, bounded as a whole. AsyncHTTPClient's deadline covers
/// the request and the answer's head, not the wait for the rest of the body: a service that
/// stalled mid-answer would hold the send, and its slot in the worker's window, for good.
struct PushExchange: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: ByteBuffer

    /// Sends `request` and reads the answer (at most `maximumBodyBytes`); throws
    /// `HTTPClientError.deadlineExceeded` when the whole exchange takes longer than `timeout`.
    static func run(
        _ request: HTTPClientRequest, on client: HTTPClient, timeout: Duration, maximumBodyBytes: Int
    ) async throws -> PushExchange {
        try await withThrowingTaskGroup(of: PushExchange?.self) { group in
            group.addTask {
                let response = try await client.execute(request, timeout: .nanoseconds(timeout.nanoseconds))
                let body = try await response.body.collect(upTo: maximumBodyBytes)
                return PushExchange(status: Int(response.status.code), headers: response.headers, body: body)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let exchange = try await group.next() ?? nil else { throw HTTPClientError.deadlineExceeded }
            return exchange
        }
    }
}
