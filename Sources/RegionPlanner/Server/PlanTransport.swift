import Foundation

/// One HTTP answer as a plan client needs it.
public struct PlanHTTPResponse: Sendable {
    public var status: Int
    /// Header values by lower-cased name.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The HTTP GET a ``ServerPlanSource`` sends. `URLSessionPlanTransport` implements it on Apple
/// platforms; the command-line tool's `AsyncHTTPClientPlanTransport` on Linux; tests may
/// script one.
public protocol PlanTransport: Sendable {
    /// Sends `GET url` with `headers`; throws only when no answer arrived.
    func get(_ url: String, headers: [(String, String)]) async throws -> PlanHTTPResponse
}

#if canImport(Darwin)
/// ``PlanTransport`` on `URLSession` (Apple platforms). Caching is the plan source's own
/// (ETag, max-age), so the session's URL cache is bypassed.
public struct URLSessionPlanTransport: PlanTransport {
    public let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    public func get(_ url: String, headers: [(String, String)]) async throws -> PlanHTTPResponse {
        guard let u = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: u, cachePolicy: .reloadIgnoringLocalCacheData)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (k, v) in http.allHeaderFields {
            if let k = k as? String, let v = v as? String { fields[k.lowercased()] = v }
        }
        return PlanHTTPResponse(status: http.statusCode, headers: fields, body: [UInt8](data))
    }
}
#endif
