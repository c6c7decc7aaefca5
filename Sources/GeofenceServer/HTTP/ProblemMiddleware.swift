import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers

/// Turns every error into an RFC 9457 problem document: ``Problem``s pass through,
/// Hummingbird's `HTTPError`s (unknown route, body too large) keep their status, and anything
/// else becomes a 500 whose details go to the log, not to the client.
struct ProblemMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let logger: Logger
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let p as Problem {
            if p.status.code < 500 { metrics.rejected.increment() }
            throw p
        } catch let e as HTTPError {
            metrics.rejected.increment()
            if e.status == .notFound, let allowed = RouteTable.allowedMethods(path: request.uri.path) {
                var p = Problem(
                    status: .methodNotAllowed,
                    detail:
                        "\(request.method) is not allowed on \(request.uri.path); allowed: \(allowed.joined(separator: ", "))"
                )
                p.allowedMethods = allowed.joined(separator: ", ")
                throw p
            }
            let detail: String
            switch e.status {
            case .notFound: detail = "no route \(request.method) \(request.uri.path)"
            case .contentTooLarge: detail = "the request body is larger than the server accepts"
            default: detail = e.body ?? e.status.reasonPhrase
            }
            throw Problem(status: e.status, detail: detail, field: e.status == .contentTooLarge ? "body" : nil)
        } catch let e as any HTTPResponseError {
            throw e
        } catch {
            logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            throw Problem(status: .internalServerError, detail: "internal error; see the server log")
        }
    }
}

/// Resolves `Authorization: Bearer KEY` to a tenant and checks the key's scope permits the
/// operation (``KeyScope``; 401 when the key is missing or unknown, 403 when its scope does not
/// allow the operation). `/health` is the only open route.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let keys: KeyCache

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else { throw Problem.unauthorized }
        var key = Substring(auth.dropFirst(7))
        while key.first == " " || key.first == "\t" { key.removeFirst() }
        while key.last == " " || key.last == "\t" { key.removeLast() }
        guard let grant = try await keys.grant(forKey: String(key)) else { throw Problem.unauthorized }
        var context = context
        try context.authorize(grant, for: request)
        return try await next(request, context)
    }
}

/// Key → grant (tenant and scope), remembered after the first store lookup (keys are never
/// reassigned), so a known key costs one locked dictionary lookup per request: no SHA-256, no
/// actor hop, no query. Bounded: at most ``capacity`` keys are remembered (when full, the cache
/// starts over); unknown keys are never remembered, so guessing cannot fill it.
final class KeyCache: Sendable {
    let store: any ServerStore
    /// Most keys remembered at once.
    static let capacity = 4_096
    private let known = NIOLockedValueBox<[String: KeyGrant]>([:])

    init(store: any ServerStore) { self.store = store }

    func grant(forKey key: String) async throws -> KeyGrant? {
        if let g = known.withLockedValue({ $0[key] }) { return g }
        guard let g = try await store.grant(forKeyHash: APIKey.hash(key)) else { return nil }
        known.withLockedValue {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = g
        }
        return g
    }
}
