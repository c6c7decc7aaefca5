import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the tenant the API key resolved to.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``APIKeyMiddleware`` on every authenticated route.
    public var tenant: String?
    /// The scope of the request's key (set with ``tenant``; admin before).
    public var scope: KeyScope = .admin
    /// The connection the request came over (``RequestBudgetMiddleware`` watches it to cancel
    /// the request's work when the client goes away: ``ClientGoneHandler``).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.tenant = nil
        self.channel = source.channel
    }

    /// The authenticated tenant (401 when absent — never reached behind the middleware).
    func requireTenant() throws -> String {
        guard let tenant else { throw Problem.unauthorized }
        return tenant
    }

    /// The tenant, when the key may report fixes for `device` (403 otherwise: a key bound to
    /// other devices).
    func tenant(reportingFor device: String) throws -> String {
        let tenant = try requireTenant()
        guard scope.permits(device: device) else {
            throw scope.forbidden("reports for device \"\(device.prefix(64))\"")
        }
        return tenant
    }

    /// Resolves `grant` into the context when it permits `request`'s operation and the device
    /// its path names (403 otherwise; ``KeyScope/check(_:path:)``): the one scope check of both
    /// key middlewares.
    mutating func authorize(_ grant: KeyGrant, for request: Request) throws {
        try grant.scope.check(request.method, path: request.uri.path)
        tenant = grant.tenant
        scope = grant.scope
    }
}
