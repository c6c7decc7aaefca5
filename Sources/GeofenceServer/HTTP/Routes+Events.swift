import Foundation
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/events?after=CURSOR&limit=N`: the tenant's events in outbox order.
    func addEventRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store, config = self.configuration

        v1.get("events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            var after: Int64 = 0
            if let s = request.uri.queryParameters.get("after") {
                guard let n = Int64(s), n >= 0 else {
                    throw Problem.badRequest(field: "after", detail: "query parameter after must be a cursor from a previous page, not \"\(s)\"")
                }
                after = n
            }
            let events = try await store.events(tenant: tenant, after: after, limit: limit)
            var next: ServerJSON = .string(String(after))
            if case .object(let last)? = events.last, let c = last["cursor"] { next = c }
            return .json(.object(["events": .array(events), "next": next]))
        }
    }
}
