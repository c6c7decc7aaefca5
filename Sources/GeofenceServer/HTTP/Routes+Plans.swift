import Crypto
import Foundation
import Geodesy
import Geofencing
import Hummingbird
import RegionPlanner

extension GeofenceServer {
    /// `/v1/devices/{id}/plan`, `/v1/settings`, `/v1/devices/{id}/settings`.
    func addPlanRoutes(to v1: RouterGroup<APIRequestContext>) {
        let hub = self.hub
        let store = self.store
        let config = self.configuration
        let clock = self.clock
        let limiter = self.queryLimiter

        v1.get("devices/:id/plan") { request, context -> Response in
            let (tenant, device) = try context.tenantAndID()
            let lat = try request.doubleQuery("lat", range: -90...90)
            let lon = try request.doubleQuery("lon", range: -180...180)
            let slots = try request.intQuery("slots", default: 20, range: 2...GeofenceServer.maximumPlanSlots)
            // The phone's fix interval, when longer than the sizing's: the circle shrinks as the
            // planner's does for the interval it observes (ReplanSizing.adapted(toFixInterval:)).
            let interval = try request.doubleQuery("fixInterval", range: 1...3_600, default: 1)
            // How late the phone's region events may arrive (Core Location: up to 300 s): the
            // circle leaves room for the travel in that time, as the phone's planner does.
            let latency = try request.doubleQuery(
                "eventLatency", range: 0...ReplanSizing.maximumEventLatency, default: 0)
            let sizing = config.planSizing.adapted(toFixInterval: interval).adapted(toEventLatency: latency)
            let settings = try await GeofenceServer.planSettings(store: store, tenant: tenant, device: device)
            let point = Coordinate(uncheckedLatitude: lat, longitude: lon)
            var plan: DevicePlan? = nil
            if settings.monitoringEnabled {
                plan = try await limiter.run(tenant: tenant) {
                    try await hub.runtime(tenant).plan(
                        at: point, slots: slots, radius: config.maxNearbyRadiusMeters,
                        sizing: sizing)
                }
            }
            let body = GeofenceServer.planJSON(plan, device: device, point: point, slots: slots, settings: settings)
                .encoded()
            return GeofenceServer.cachedResponse(body, request: request, maxAge: settings.planMaxAgeSeconds)
        }

        v1.get("settings") { _, context -> Response in
            let tenant = try context.requireTenant()
            let stored = try await store.settings(tenant: tenant, device: nil)
            return .json(PlanSettings().applying(SettingsOverride(stored: stored.tenant)).json)
        }

        v1.put("settings") { request, context -> Response in
            let tenant = try context.requireTenant()
            let override = try SettingsOverride(body: try await request.jsonBody(limit: config.maxBodyBytes))
            try await store.putSettings(tenant: tenant, device: nil, override.json, now: clock())
            return .json(PlanSettings().applying(override).json)
        }

        v1.get("devices/:id/settings") { _, context -> Response in
            let (tenant, device) = try context.tenantAndID()
            let stored = try await store.settings(tenant: tenant, device: device)
            return .json(
                GeofenceServer.deviceSettingsJSON(
                    device: device, tenant: SettingsOverride(stored: stored.tenant),
                    device: SettingsOverride(stored: stored.device)))
        }

        v1.put("devices/:id/settings") { request, context -> Response in
            let (tenant, device) = try context.tenantAndID()
            let override = try SettingsOverride(body: try await request.jsonBody(limit: config.maxBodyBytes))
            try await store.putSettings(tenant: tenant, device: device, override.json, now: clock())
            let stored = try await store.settings(tenant: tenant, device: nil)
            return .json(
                GeofenceServer.deviceSettingsJSON(
                    device: device, tenant: SettingsOverride(stored: stored.tenant),
                    device: override))
        }
    }

    /// The most slots a plan may ask for (Android's per-app geofence limit; Core Location has 20).
    static let maximumPlanSlots = 100

    /// The settings a device's plan obeys: the defaults, then the tenant's, then the device's.
    static func planSettings(store: any ServerStore, tenant: String, device: String) async throws -> PlanSettings {
        let stored = try await store.settings(tenant: tenant, device: device)
        return PlanSettings().applying(SettingsOverride(stored: stored.tenant)).applying(
            SettingsOverride(stored: stored.device))
    }

    static func deviceSettingsJSON(
        device: String, tenant: SettingsOverride, device override: SettingsOverride
    ) -> ServerJSON {
        guard case .object(var o) = override.json else { return .null }
        o["device"] = .string(device)
        o["effective"] = PlanSettings().applying(tenant).applying(override).json
        return .object(o)
    }

    /// The plan document. Deterministic for equal inputs (keys sorted, distances rounded to
    /// 0.1 m), so its hash is a strong ETag. With monitoring off it does not depend on the
    /// point (no centre, no regions), so a switched-off phone's fetches are 304s wherever it is.
    static func planJSON(
        _ plan: DevicePlan?, device: String, point: Coordinate, slots: Int, settings: PlanSettings
    ) -> ServerJSON {
        var regions: [ServerJSON] = []
        for e in plan?.regions ?? [] {
            guard case .object(var f) = RegionJSON.feature(e.region) else { continue }
            f["distanceMeters"] = .number((e.distance * 10).rounded() / 10)
            f["hasChildren"] = .bool(e.hasChildren)
            regions.append(.object(f))
        }
        return .object([
            "device": .string(device),
            "center": plan == nil
                ? .null : .object(["latitude": .number(point.latitude), "longitude": .number(point.longitude)]),
            "slots": .number(Double(slots)),
            "monitoringEnabled": .bool(settings.monitoringEnabled),
            "maxAgeSeconds": .number(Double(settings.planMaxAgeSeconds)),
            "regions": .array(regions),
            "replanRadiusMeters": plan.map { .number($0.replanRadius) } ?? .null,
            "guaranteed": .bool(plan?.guaranteed ?? false),
        ])
    }

    /// A 200 with `body`, or a 304 when `If-None-Match` names its ETag (RFC 9110 §13.1.2: a
    /// list of tags, weak ones compared weakly, or `*`); both carry the ETag and
    /// `Cache-Control: private, max-age`.
    static func cachedResponse(_ body: Data, request: Request, maxAge: Int) -> Response {
        let digest = SHA256.hash(data: body)
        let etag = "\"" + digest.prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        var headers: HTTPFields = [
            .contentType: "application/json", .eTag: etag,
            .cacheControl: "private, max-age=\(maxAge)",
        ]
        let asked = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if asked.contains(where: { $0 == "*" || $0 == etag || $0 == "W/" + etag }) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
    }
}
