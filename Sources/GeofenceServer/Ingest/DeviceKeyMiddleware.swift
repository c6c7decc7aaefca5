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
/// ``APIKeyMiddleware`` does for the bearer header. A key in a URL can end up in proxy and
/// access logs: use it only where the app offers nothing else, and over TLS.
struct DeviceKeyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let keys: KeyCache

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let key = DeviceCredentials(request).key, !key.isEmpty,
            let tenant = try await keys.tenant(forKey: key)
        else {
            throw Problem(
                status: .unauthorized,
                detail:
                    "missing or unknown API key (send Authorization: Bearer KEY, Basic auth with the key as password, or ?key=KEY)"
            )
        }
        var context = context
        context.tenant = tenant
        return try await next(request, context)
    }
}
