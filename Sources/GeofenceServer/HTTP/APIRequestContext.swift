import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the tenant the API key resolved to.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``APIKeyMiddleware`` on every authenticated route.
    public var tenant: String?
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
}
