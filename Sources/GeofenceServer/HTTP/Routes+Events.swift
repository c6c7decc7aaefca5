import Foundation
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/events?after=CURSOR&limit=N`: the tenant's events in outbox order.
    func addEventRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store, config = self.configuration

        v1.get("events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let after = try request.cursorQuery("after")
            let events = try await store.events(tenant: tenant, after: after, limit: limit)
            var next: ServerJSON = .string(String(after))
            if case .object(let last)? = events.last, let c = last["cursor"] { next = c }
            return .json(.object(["events": .array(events), "next": next]))
        }
    }
}
