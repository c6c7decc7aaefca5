import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the tenant the API key resolved to.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``APIKeyMiddleware`` on every authenticated route.
    public var tenant: String?
    /// Completes when the client's connection closes (``RequestBudgetMiddleware`` cancels
    /// the request's work then); `nil` when the request did not come over a channel.
    var connectionClosed: EventLoopFuture<Void>?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.tenant = nil
        self.connectionClosed = source.channel.closeFuture
    }

    /// The authenticated tenant (401 when absent — never reached behind the middleware).
    func requireTenant() throws -> String {
        guard let tenant else { throw Problem.unauthorized }
        return tenant
    }
}
