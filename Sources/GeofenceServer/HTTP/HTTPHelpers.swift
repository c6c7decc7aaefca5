import Foundation
import Hummingbird

extension Response {
    /// A JSON response.
    static func json(_ value: ServerJSON, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(data: value.encoded())))
    }
}

extension Request {
    /// Collects the body (413 problem beyond `limit` bytes) and parses it as JSON (400 problem).
    func jsonBody(limit: Int) async throws -> ServerJSON {
        var request = self
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limit) } catch {
            throw Problem(
                status: .contentTooLarge, detail: "the request body is larger than \(limit) bytes", field: "body")
        }
        guard buffer.readableBytes > 0 else {
            throw Problem.badRequest(field: "body", detail: "the request body is empty")
        }
        return try ServerJSON.parse(Data(buffer: buffer))
    }

    /// An integer query parameter within `range`, or `default` when absent.
    func intQuery(_ name: String, default value: Int, range: ClosedRange<Int>) throws(Problem) -> Int {
        guard let s = uri.queryParameters.get(name) else { return value }
        guard let n = canonicalInteger(s).flatMap({ Int(exactly: $0) }), range.contains(n) else {
            throw Problem.badRequest(
                field: name,
                detail:
                    "query parameter \(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not \"\(s)\""
            )
        }
        return n
    }

    /// A numeric query parameter within `range`; required unless a `default` is given.
    func doubleQuery(_ name: String, range: ClosedRange<Double>, default value: Double? = nil) throws(Problem) -> Double
    {
        guard let s = uri.queryParameters.get(name) else {
            if let value { return value }
            throw Problem.badRequest(field: name, detail: "query parameter \(name) is required")
        }
        guard let d = decimalNumber(s) else {
            throw Problem.badRequest(field: name, detail: "query parameter \(name) must be a number, not \"\(s)\"")
        }
        guard range.contains(d) else {
            throw Problem.badRequest(
                field: name,
                detail: "query parameter \(name) \(d) is outside [\(range.lowerBound), \(range.upperBound)]")
        }
        return d
    }
}

/// A finite decimal number (`-12.5`, `1e-3`, `.5`): what a client means by a number in a query
/// or a form, not the hexadecimal (`0x10`), `nan` or `inf` that `Double(_:)` also reads; `nil`
/// otherwise.
func decimalNumber<S: StringProtocol>(_ s: S) -> Double? {
    guard !s.isEmpty, s.allSatisfy({ "0123456789+-.eE".contains($0) }), let d = Double(String(s)), d.isFinite
    else { return nil }
    return d
}

/// A decimal integer written as JSON writes one (`0`, `42`, `-7`: no sign on positive numbers,
/// no leading zeros, no spaces) that fits in an `Int64`; `nil` otherwise. Query parameters and
/// cursors are read this way, so the server refuses exactly what the OpenAPI `integer` refuses.
func canonicalInteger<S: StringProtocol>(_ s: S) -> Int64? {
    let text = String(s)
    let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    guard let first = digits.first, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
        first != "0" || digits.count == 1, !(text.hasPrefix("-") && digits == "0")
    else { return nil }
    return Int64(text)
}

extension Request {
    /// An event cursor from the query parameter `name` (a decimal integer ≥ 0 within Int64),
    /// 0 when absent; 400 naming `name` otherwise — an empty `after=` too.
    func cursorQuery(_ name: String) throws(Problem) -> Int64 {
        guard let s = uri.queryParameters.get(name) else { return 0 }
        return try parseCursor(s, field: name)
    }
}

/// A cursor (decimal integer ≥ 0 within Int64), or a 400 problem naming `field`.
func parseCursor<S: StringProtocol>(_ s: S, field: String) throws(Problem) -> Int64 {
    guard let n = canonicalInteger(s), n >= 0 else {
        throw Problem.badRequest(
            field: field,
            detail:
                "\(field) must be a cursor (a decimal integer from 0 to \(Int64.max)) from a previous page or event, not \"\(s)\""
        )
    }
    return n
}

extension Request {
    /// The identifier in the query parameter `name` (the first, when repeated), decoded,
    /// normalized and checked by ``Identifier/fromURL(_:field:)`` (400 naming `name`
    /// otherwise); `nil` when absent.
    func identifierQuery(_ name: String) throws(Problem) -> String? {
        try rawQuery(name).map { raw throws(Problem) in try Identifier.fromURL(raw, field: name) }
    }

    /// The query parameter `name` as sent (still percent-encoded; the first, when repeated):
    /// identifiers are decoded here strictly, where Hummingbird's `queryParameters` keeps a
    /// malformed escape as it is and turns bytes that are not UTF-8 into U+FFFD.
    func rawQuery(_ name: String) -> Substring? {
        guard let query = uri.query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts[0] == name { return parts.count > 1 ? parts[1] : "" }
        }
        return nil
    }
}

extension APIRequestContext {
    /// The `{id}` path parameter, percent-decoded and checked by ``Identifier`` (400 naming
    /// `id` otherwise).
    func pathIdentifier() throws -> String {
        try Identifier.fromURL(Substring(try parameters.require("id")), field: "id")
    }

    /// The tenant of the API key and the `{id}` path parameter: every `/v1/…/{id}` route starts
    /// with these two (401, or 400 naming `id`).
    func tenantAndID() throws -> (tenant: String, id: String) {
        (try requireTenant(), try pathIdentifier())
    }
}
