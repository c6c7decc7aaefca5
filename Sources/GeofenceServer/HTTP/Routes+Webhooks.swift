import Foundation
import Hummingbird

extension GeofenceServer {
    /// `/v1/webhooks`: register (URL host must be on the operator's allow-list), list, delete,
    /// and each endpoint's delivery log.
    func addWebhookRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store
        let config = self.configuration
        let clock = self.clock
        let allowed = Set(config.allowedWebhookHosts.map { $0.lowercased() })

        @Sendable func describe(_ w: Webhook, secret: Bool) -> ServerJSON {
            var o: [String: ServerJSON] = ["id": .string(w.id), "url": .string(w.url)]
            if secret { o["secret"] = .string(w.secret) }
            return .object(o)
        }

        v1.post("webhooks") { request, context -> Response in
            let tenant = try context.requireTenant()
            let body = try JSONObjectReader(try await request.jsonBody(limit: 64 << 10), path: "")
            let url = try body.string("url")
            guard let u = URLComponents(string: url), let scheme = u.scheme?.lowercased(),
                scheme == "http" || scheme == "https",
                let host = u.host, !host.isEmpty
            else {
                throw Problem.badRequest(field: "url", detail: "url must be an absolute http or https URL")
            }
            guard allowed.contains(host.lowercased()) else {
                throw Problem(
                    status: .unprocessableContent,
                    detail: "url host \"\(host)\" is not on the server's webhook allow-list", field: "url")
            }
            let w = Webhook(
                id: "wh_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16),
                tenant: tenant, url: url, secret: "whsec_" + APIKey.generate().dropFirst(4))
            try await store.addWebhook(w, now: clock())
            return .json(describe(w, secret: true), status: .created)
        }

        v1.get("webhooks") { request, context -> Response in
            let tenant = try context.requireTenant()
            return .json(
                .object([
                    "webhooks": .array(try await store.webhooks(tenant: tenant).map { describe($0, secret: false) })
                ]))
        }

        v1.delete("webhooks/:id") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            guard try await store.deleteWebhook(tenant: tenant, id: id) else {
                throw Problem.notFound("no webhook \"\(id)\"")
            }
            return Response(status: .noContent)
        }

        v1.get("webhooks/:id/deliveries") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            guard try await store.webhooks(tenant: tenant).contains(where: { $0.id == id }) else {
                throw Problem.notFound("no webhook \"\(id)\"")
            }
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let after = try request.cursorQuery("after")
            let items = try await store.deliveries(tenant: tenant, webhookID: id, after: after, limit: limit)
            var next: ServerJSON = .string(String(after))
            if case .object(let last)? = items.last, let c = last["id"] { next = c }
            return .json(.object(["deliveries": .array(items), "next": next]))
        }
    }
}
