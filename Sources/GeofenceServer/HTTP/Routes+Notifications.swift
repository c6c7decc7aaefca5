import Foundation
import Hummingbird

extension GeofenceServer {
    /// Push tokens (`/v1/devices/{id}/push-tokens[/{token}]`), the device's notification settings
    /// (`/v1/devices/{id}/notification-settings`), its delivery log (`/v1/devices/{id}/notifications`)
    /// and the tenant's rules (`/v1/notification-rules[/{id}]`). docs/notifications.md.
    func addNotificationRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store as? any NotificationStore
        let config = self.configuration
        let clock = self.clock

        @Sendable func notifications() throws -> any NotificationStore {
            guard let store else {
                throw Problem(status: .notImplemented, detail: "this server's store keeps no notifications")
            }
            return store
        }

        v1.put("devices/:id/push-tokens/:token") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            let raw = try Identifier.percentDecoded(Substring(try context.parameters.require("token")), field: "token")
            let body = try await request.jsonBody(limit: 16 << 10)
            let token = try PushToken.parse(token: raw, body: body, now: clock())
            guard try await notifications().putPushToken(tenant: tenant, device: device, token) else {
                throw Problem(
                    status: .conflict,
                    detail:
                        "device \"\(device.prefix(64))\" has \(PushToken.maximumPerDevice) push tokens; remove one first",
                    field: "token")
            }
            return .json(token.json)
        }

        v1.delete("devices/:id/push-tokens/:token") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            let raw = try Identifier.percentDecoded(Substring(try context.parameters.require("token")), field: "token")
            // APNs tokens are kept in lower case (PushToken.parse); either spelling removes one.
            var removed = try await notifications().deletePushToken(tenant: tenant, device: device, token: raw)
            if !removed, raw != raw.lowercased() {
                removed = try await notifications().deletePushToken(
                    tenant: tenant, device: device, token: raw.lowercased())
            }
            guard removed else { throw Problem.notFound("device \"\(device.prefix(64))\" has no such push token") }
            return Response(status: .noContent)
        }

        v1.get("devices/:id/push-tokens") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            let tokens = try await notifications().pushTokens(tenant: tenant, device: device)
            return .json(.object(["tokens": .array(tokens.map(\.json))]))
        }

        v1.get("devices/:id/notification-settings") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            return .json(try await notifications().notificationSettings(tenant: tenant, device: device).json)
        }

        v1.put("devices/:id/notification-settings") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            let settings = try DeviceNotificationSettings.parse(try await request.jsonBody(limit: 16 << 10))
            try await notifications().putNotificationSettings(tenant: tenant, device: device, settings, now: clock())
            return .json(settings.json)
        }

        v1.get("devices/:id/notifications") { request, context -> Response in
            let (tenant, device) = try context.tenantManagingNotifications(request)
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let after = try request.cursorQuery("after")
            let items = try await notifications().notificationLog(
                tenant: tenant, device: device, after: after, limit: limit)
            var next: ServerJSON = .string(String(after))
            if case .object(let last)? = items.last, let c = last["id"] { next = c }
            return .json(.object(["notifications": .array(items), "next": next]))
        }

        v1.post("notification-rules") { request, context -> Response in
            let tenant = try context.requireTenant()
            let generated: String =
                "nr_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            let rule = try NotificationRule.parse(try await request.jsonBody(limit: 64 << 10), generatedID: generated)
            guard try await notifications().addNotificationRule(tenant: tenant, rule, now: clock()) else {
                throw Problem(
                    status: .conflict,
                    detail:
                        "a rule \"\(rule.id.prefix(64))\" exists, or the tenant has \(NotificationRule.maximumPerTenant) rules",
                    field: "id")
            }
            return .json(rule.json, status: .created)
        }

        v1.get("notification-rules") { _, context -> Response in
            let tenant = try context.requireTenant()
            let rules = try await notifications().notificationRules(tenant: tenant)
            return .json(.object(["rules": .array(rules.map(\.json))]))
        }

        v1.delete("notification-rules/:id") { _, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            guard try await notifications().deleteNotificationRule(tenant: tenant, id: id) else {
                throw Problem.notFound("no notification rule \"\(id.prefix(64))\"")
            }
            return Response(status: .noContent)
        }
    }
}

extension APIRequestContext {
    /// The tenant and the `{id}` device, when the key may manage that device's notifications:
    /// the one check of the device's push tokens, settings and log. Admin keys may; read keys
    /// only read; a key bound to devices (``KeyScope/permits(device:)``) only for its own.
    func tenantManagingNotifications(_ request: Request) throws -> (tenant: String, device: String) {
        let (tenant, device) = try tenantAndID()
        if case .read = scope {
            guard request.method == .get else { throw scope.forbidden("\(request.method) \(request.uri.path)") }
            return (tenant, device)
        }
        guard scope.permits(device: device) else {
            throw scope.forbidden("the notifications of device \"\(device.prefix(64))\"")
        }
        return (tenant, device)
    }
}
