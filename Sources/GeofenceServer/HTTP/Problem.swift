import Foundation
import HTTPTypes
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
    /// The `WWW-Authenticate` challenges of a 401 answer (RFC 9110 §11.6.1), one header each.
    var challenges = ["Bearer"]

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
    /// 413: a JSON array of `count` `items` (fixes, features) where `maxBatchSize` is `limit`:
    /// the one batch limit of every route.
    static func batchTooLarge(count: Int, limit: Int, field: String, items: String = "fixes") -> Problem {
        Problem(
            status: .contentTooLarge, detail: "a batch holds at most \(limit) \(items); this one has \(count)",
            field: field)
    }
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
        if status == .unauthorized {
            for challenge in challenges { headers.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        }
        if status == .serviceUnavailable || status == .tooManyRequests { headers[.retryAfter] = "1" }
        if let allow = allowedMethods { headers[.allow] = allow }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: json.encoded())))
    }
}
