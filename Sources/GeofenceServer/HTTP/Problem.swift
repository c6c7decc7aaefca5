import Foundation
import Hummingbird

/// An API error, rendered as an RFC 9457 `application/problem+json` body.
///
/// Every problem names what the client must fix: `field` is the JSON path of the bad value
/// (`fixes[3].latitude`, `features[0].properties.radius`) or the query parameter, when one
/// is at fault.
///
/// ```json
/// {"type":"about:blank","title":"Bad Request","status":400,
///  "detail":"fixes[3].latitude 95.0 is outside [-90, 90]","field":"fixes[3].latitude"}
/// ```
public struct Problem: Error, Sendable, Equatable, HTTPResponseError, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A human-readable explanation of this occurrence.
    public var detail: String
    /// The request field at fault, if any.
    public var field: String?
    /// Extension members (RFC 9457 §3.2), e.g. `lastAcceptedTimestamp` on an out-of-order fix.
    public var extensions: [String: ServerJSON]
    /// The `Allow` header of a 405 answer.
    var allowedMethods: String? = nil

    public init(
        status: HTTPResponse.Status, detail: String, field: String? = nil, extensions: [String: ServerJSON] = [:]
    ) {
        self.status = status
        self.detail = detail
        self.field = field
        self.extensions = extensions
    }

    public var description: String { detail }

    static func badRequest(field: String?, detail: String) -> Problem {
        Problem(status: .badRequest, detail: detail, field: field)
    }
    static func notFound(_ detail: String) -> Problem { Problem(status: .notFound, detail: detail) }
    static let unauthorized = Problem(
        status: .unauthorized, detail: "missing or unknown API key (send Authorization: Bearer KEY)")

    /// The problem document.
    var json: ServerJSON {
        var o: [String: ServerJSON] = extensions
        o.merge([
            "type": .string("about:blank"),
            "title": .string(status.reasonPhrase),
            "status": .number(Double(status.code)),
            "detail": .string(detail),
        ]) { _, standard in standard }
        if let field { o["field"] = .string(field) }
        return .object(o)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if status == .serviceUnavailable || status == .tooManyRequests { headers[.retryAfter] = "1" }
        if let allow = allowedMethods { headers[.allow] = allow }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: json.encoded())))
    }
}
