import Hummingbird

/// The request context: Hummingbird's core storage plus the tenant the API key resolved to.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``APIKeyMiddleware`` on every authenticated route.
    public var tenant: String?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.tenant = nil
    }

    /// The authenticated tenant (401 when absent — never reached behind the middleware).
    func requireTenant() throws -> String {
        guard let tenant else { throw Problem.unauthorized }
        return tenant
    }
}
