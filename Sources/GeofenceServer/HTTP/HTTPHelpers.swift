import Foundation
import Hummingbird

extension Response {
    /// A JSON response.
    static func json(_ value: ServerJSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(data: value.encoded())))
    }
}

extension Request {
    /// Collects the body (413 problem beyond `limit` bytes) and parses it as JSON (400 problem).
    func jsonBody(limit: Int) async throws -> ServerJSON {
        var request = self
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limit) } catch {
            throw Problem(status: .contentTooLarge, detail: "the request body is larger than \(limit) bytes", field: "body")
        }
        guard buffer.readableBytes > 0 else { throw Problem.badRequest(field: "body", detail: "the request body is empty") }
        return try ServerJSON.parse(Data(buffer: buffer))
    }

    /// An integer query parameter within `range`, or `default` when absent.
    func intQuery(_ name: String, default value: Int, range: ClosedRange<Int>) throws(Problem) -> Int {
        guard let s = uri.queryParameters.get(name) else { return value }
        guard let n = Int(s), range.contains(n) else {
            throw Problem.badRequest(field: name, detail: "query parameter \(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \"\(s)\"")
        }
        return n
    }

    /// A required numeric query parameter within `range`.
    func doubleQuery(_ name: String, range: ClosedRange<Double>) throws(Problem) -> Double {
        guard let s = uri.queryParameters.get(name) else {
            throw Problem.badRequest(field: name, detail: "query parameter \(name) is required")
        }
        guard let d = Double(s), d.isFinite else {
            throw Problem.badRequest(field: name, detail: "query parameter \(name) must be a number, not \"\(s)\"")
        }
        guard range.contains(d) else {
            throw Problem.badRequest(field: name, detail: "query parameter \(name) \(d) is outside [\(range.lowerBound), \(range.upperBound)]")
        }
        return d
    }
}

/// Checks a path identifier (region, device, webhook): non-empty, at most 256 bytes.
func checkIdentifier(_ s: String, name: String) throws(Problem) -> String {
    guard !s.isEmpty, s.utf8.count <= 256 else {
        throw Problem.badRequest(field: name, detail: "\(name) must be 1 to 256 bytes long")
    }
    return s
}
