import Foundation
import Hummingbird

extension GeofenceServer {
    /// `GET /v1/events?after=CURSOR&limit=N`: the tenant's events in outbox order. An `after`
    /// older than what retention kept is a 410 problem (``requireRetained(after:tenant:field:store:retention:)``);
    /// without `after`, the page starts at the oldest event kept.
    func addEventRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store
        let config = self.configuration

        v1.get("events") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let after = try request.cursorQuery("after")
            if request.uri.queryParameters.get("after") != nil {
                try await requireRetained(
                    after: after, tenant: tenant, field: "after", store: store, retention: config.eventRetention)
            }
            let events = try await store.events(tenant: tenant, after: after, limit: limit)
            var next: ServerJSON = .string(String(after))
            if case .object(let last)? = events.last, let c = last["cursor"] { next = c }
            return .json(.object(["events": .array(events), "next": next]))
        }
    }
}

/// A 410 problem when events after `after` were deleted by retention
/// (``ServerStore/eventHorizon(tenant:)``): resuming there would silently skip them.
func requireRetained(
    after: Int64, tenant: String, field: String, store: any ServerStore, retention: Duration?
) async throws {
    let horizon = try await store.eventHorizon(tenant: tenant)
    guard after < horizon else { return }
    let kept = retention.map { "\(($0.seconds / 86_400 * 100).rounded() / 100) days" } ?? "their retention"
    throw Problem(
        status: .gone,
        detail: "events up to cursor \(horizon) were deleted after \(kept); \(field) \(after) is older. "
            + "Resume with after=\(horizon) (the events between are lost) or start without a cursor",
        field: field, extensions: ["resumeAfter": .string(String(horizon))])
}
