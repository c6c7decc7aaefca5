import Foundation
import Geodesy
import Geofencing
import Hummingbird

extension GeofenceServer {
    /// `/v1/regions`: create, replace, get, delete, list (paged by id), bulk import, nearby.
    func addRegionRoutes(to v1: RouterGroup<APIRequestContext>) {
        let hub = self.hub
        let store = self.store
        let config = self.configuration
        let clock = self.clock
        let limiter = self.queryLimiter

        v1.post("regions") { request, context -> Response in
            let tenant = try context.requireTenant()
            let body = try await request.jsonBody(limit: config.maxBodyBytes)
            let region = try RegionJSON.region(from: body)
            _ = try await hub.runtime(tenant).upsert([region], create: true, now: clock())
            return .json(RegionJSON.feature(region), status: .created)
        }

        v1.post("regions/import") { request, context -> Response in
            let tenant = try context.requireTenant()
            let body = try await request.jsonBody(limit: config.maxBodyBytes)
            if case .array(let features)? = body["features"], features.count > config.maxBatchSize {
                throw Problem.batchTooLarge(
                    count: features.count, limit: config.maxBatchSize, field: "features", items: "features")
            }
            let regions = try RegionJSON.regions(importing: body)
            let existed = try await hub.runtime(tenant).upsert(regions, create: false, now: clock())
            let replaced = existed.filter { $0 }.count
            return .json(
                .object([
                    "imported": .number(Double(regions.count)), "created": .number(Double(regions.count - replaced)),
                    "replaced": .number(Double(replaced)),
                ]))
        }

        v1.get("regions/nearby") { request, context -> Response in
            let tenant = try context.requireTenant()
            let lat = try request.doubleQuery("lat", range: -90...90)
            let lon = try request.doubleQuery("lon", range: -180...180)
            let limit = try request.intQuery("limit", default: 20, range: 1...100)
            let maxRadius = config.maxNearbyRadiusMeters
            let radius = try request.doubleQuery("radius", range: 1...maxRadius, default: maxRadius)
            let point = Coordinate(uncheckedLatitude: lat, longitude: lon)
            let answer = try await limiter.run(tenant: tenant) {
                try await hub.runtime(tenant).nearby(point, radius: radius, limit: limit)
            }
            var items: [ServerJSON] = []
            for (r, found) in zip(answer.shapes, answer.regions) {
                guard case .object(var f) = RegionJSON.feature(r) else { continue }
                f["distanceMeters"] = .number((found.distance * 10).rounded() / 10)
                items.append(.object(f))
            }
            return .json(
                .object([
                    "regions": .array(items), "replanRadiusMeters": .number(answer.replanRadius.rounded()),
                    "stableRadiusMeters": .number((max(0, answer.stableRadius) * 10).rounded(.down) / 10),
                    "searchRadiusMeters": .number(radius),
                ]))
        }

        v1.get("regions") { request, context -> Response in
            let tenant = try context.requireTenant()
            let limit = try request.intQuery("limit", default: 100, range: 1...config.maxPageSize)
            let after = try request.identifierQuery("after")
            if let bbox = request.uri.queryParameters.get("bbox") { // BoundingBox.swift
                let runtime = await hub.runtime(tenant)
                return try await limiter.run(tenant: tenant) {
                    try await GeofenceServer.regionsPage(
                        bbox: String(bbox), after: after, limit: limit, runtime: runtime)
                }
            }
            let page = try await store.listRegions(tenant: tenant, after: after, limit: limit)
            var o: [String: ServerJSON] = ["regions": .array(page.map(\.feature))]
            o["next"] = page.count == limit ? .string(page.last!.id) : .null
            return .json(.object(o))
        }

        v1.get("regions/:id") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            guard let f = try await store.region(tenant: tenant, id: id) else {
                throw Problem.notFound("no region \"\(id)\"")
            }
            return .json(f)
        }

        v1.put("regions/:id") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            let body = try await request.jsonBody(limit: config.maxBodyBytes)
            let region = try RegionJSON.region(from: body, overrideID: id)
            let existed = try await hub.runtime(tenant).upsert([region], create: false, now: clock())
            return .json(RegionJSON.feature(region), status: existed[0] ? .ok : .created)
        }

        v1.delete("regions/:id") { request, context -> Response in
            let (tenant, id) = try context.tenantAndID()
            guard try await hub.runtime(tenant).delete(id: id, now: clock()) else {
                throw Problem.notFound("no region \"\(id)\"")
            }
            return Response(status: .noContent)
        }
    }
}
