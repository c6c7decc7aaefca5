import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RegionPlanner

/// RegionPlanner's ``PlanTransport`` on AsyncHTTPClient (Linux and servers), plus the `POST`
/// that reports fixes.
public struct AsyncHTTPClientPlanTransport: PlanTransport {
    public let client: HTTPClient
    /// Per request.
    public var timeout: TimeAmount = .seconds(30)
    /// The largest answer read.
    public var maximumBodyBytes = 16 << 20

    public init(client: HTTPClient = .shared) { self.client = client }

    public func get(_ url: String, headers: [(String, String)]) async throws -> PlanHTTPResponse {
        try await send(url, method: .GET, headers: headers, body: nil)
    }

    /// Sends `POST url` with a JSON body.
    public func post(_ url: String, headers: [(String, String)], json: Data) async throws -> PlanHTTPResponse {
        try await send(url, method: .POST, headers: headers + [("Content-Type", "application/json")], body: json)
    }

    private func send(
        _ url: String, method: HTTPMethod, headers: [(String, String)], body: Data?
    ) async throws -> PlanHTTPResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (k, v) in headers { request.headers.add(name: k, value: v) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: maximumBodyBytes)
        var fields: [String: String] = [:]
        for h in response.headers { fields[h.name.lowercased()] = h.value }
        return PlanHTTPResponse(
            status: Int(response.status.code), headers: fields, body: Array(buffer.readableBytesView))
    }
}
