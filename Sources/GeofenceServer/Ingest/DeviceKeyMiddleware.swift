import Foundation
import Hummingbird

/// The API key as a tracking app can send it: `Authorization: Bearer KEY`, HTTP Basic
/// authentication with the key as the password (the user name is kept: OwnTracks names its
/// user there), or the `key` query parameter.
struct DeviceCredentials {
    var key: String?
    var basicUser: String?

    init(_ request: Request) {
        if let auth = request.headers[.authorization] {
            if auth.hasPrefix("Bearer ") {
                key = auth.dropFirst(7).trimmingCharacters(in: .whitespaces)
            } else if auth.hasPrefix("Basic "),
                let decoded = Data(base64Encoded: auth.dropFirst(6).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8),
                let colon = text.firstIndex(of: ":")
            {
                basicUser = String(text[..<colon])
                key = String(text[text.index(after: colon)...])
            }
        }
        if key == nil, let query = request.uri.query, let parameters = try? FormParameters.decode(query[...]) {
            key = parameters["key"]
        }
    }
}

/// Resolves a tracking app's credentials (``DeviceCredentials``) to a tenant, as
/// ``APIKeyMiddleware`` does for the bearer header; a 401 challenges for Basic first, so that
/// credentials written in the app's URL (`https://phone:KEY@host/v1/ingest/osmand`) are sent.
/// A key in a query string can end up in proxy and access logs (the server itself logs paths
/// only, never queries or headers): use it only where the app offers nothing else, and over TLS.
struct DeviceKeyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let keys: KeyCache
    /// The Basic challenge of the app routes (RFC 7617): the key is the password, any user.
    static let basicChallenge = #"Basic realm="geofence", charset="UTF-8""#

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let key = DeviceCredentials(request).key, !key.isEmpty,
            let grant = try await keys.grant(forKey: key)
        else {
            var problem = Problem(
                status: .unauthorized,
                detail:
                    "missing or unknown API key (send Authorization: Bearer KEY, Basic auth with the key as password, or ?key=KEY)"
            )
            // Basic first: an app given `https://user:KEY@host/…` (Traccar Client for iOS, whose
            // requests replace the URL's query) sends its URL credentials only when challenged.
            problem.challenges = [Self.basicChallenge, "Bearer"]
            throw problem
        }
        var context = context
        try context.authorize(grant, for: request)
        return try await next(request, context)
    }
}
