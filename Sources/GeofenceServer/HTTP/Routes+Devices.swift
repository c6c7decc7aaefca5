import Foundation
import Geofencing
import Hummingbird

extension GeofenceServer {
    /// `/v1/devices/{id}/locations` (ingest) and `/v1/devices/{id}/state`.
    func addDeviceRoutes(to v1: RouterGroup<APIRequestContext>) {
        let hub = self.hub
        let config = self.configuration

        v1.post("devices/:id/locations") { request, context -> Response in
            let device = try context.pathIdentifier()
            let tenant = try context.tenant(reportingFor: device)
            let body = try await request.jsonBody(limit: config.maxBodyBytes)
            let now = clock()
            let fixes = try FixJSON.fixes(
                from: body, device: device, maxBatch: config.maxBatchSize,
                window: config.fixTimeWindow.range(now: now))
            let prefix: String
            switch body {
            case .array: prefix = ""
            case .object(let o) where o["fixes"] != nil: prefix = "fixes"
            default: prefix = "body"
            }
            switch try await self.ingest(tenant: tenant, device: device, fixes: fixes, fieldPrefix: prefix, now: now) {
            case .committed(let events):
                if events.isEmpty {
                    // The common answer, written directly: what `.json` gives for it, byte for byte.
                    return Response(
                        status: .ok, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(string: "{\"accepted\":\(fixes.count),\"events\":[]}")))
                }
                return .json(.object(["accepted": .number(Double(fixes.count)), "events": .array(events.map(\.json))]))
            case .duplicate:
                // The events of the original commit are in /v1/events and on their way to the webhooks.
                return .json(.object(["accepted": .number(0), "duplicate": .bool(true), "events": .array([])]))
            }
        }

        v1.get("devices/:id/state") { request, context -> Response in
            let (tenant, device) = try context.tenantAndID()
            var asked: [String]? = nil
            if let raw = request.rawQuery("regions") {
                let list = try Identifier.percentDecoded(raw, field: "regions")
                asked = try list.split(separator: ",", omittingEmptySubsequences: false).map { id throws(Problem) in
                    try Identifier.check(String(id), field: "regions")
                }
                if asked!.count > 1_000 {
                    throw Problem.badRequest(field: "regions", detail: "regions names at most 1000 regions")
                }
            }
            let setAside = await self.setAside.entry(tenant: tenant, device: device)
            let state = try await hub.runtime(tenant).state(device: device, regions: asked)
            // A device whose every report was set aside (heartbeats, a clock far ahead) has no
            // fix, but its state says why.
            guard state != nil || setAside != nil else {
                throw Problem.notFound("no device \"\(device)\" has reported a location")
            }
            var o: [String: ServerJSON] = [
                "device": .string(device),
                "lastFix": state.map { s -> ServerJSON in
                    guard case .object(var f) = FixJSON.json(s.lastFix) else { return .null }
                    f["timestamp"] = .string(FixJSON.formatRFC3339(s.lastFix.timestamp))
                    return .object(f)
                } ?? .null,
                "inside": .array((state?.inside ?? []).map { .string($0) }),
                "pending": .array((state?.pending ?? []).map { .string($0) }),
            ]
            if let setAside { o["setAside"] = setAside.json }
            if let b = try await self.store.batteries(tenant: tenant, devices: [device])[device] {
                o["battery"] = .object([
                    "percent": .number(b.percent),
                    "time": .string(FixJSON.formatRFC3339(Date(timeIntervalSince1970: b.time))),
                ])
            }
            if let asked = state?.asked {
                o["regions"] = .object(
                    Dictionary(
                        asked.map { ($0.0, $0.1.map { .string($0.rawValue) } ?? .null) },
                        uniquingKeysWith: { a, _ in a }))
            }
            return .json(.object(o))
        }
    }

    /// The one ingestion path of every protocol (the JSON API, OwnTracks, OsmAnd): runs the
    /// tenant's engine over `fixes` and commits them with their events; `now` is the clock
    /// reading the fixes' time window was checked against.
    func ingest(
        tenant: String, device: String, fixes: [LocationFix], fieldPrefix: String, now: Date
    ) async throws -> IngestResult {
        let result = try await hub.runtime(tenant).ingest(
            device: device, fixes: fixes, fieldPrefix: fieldPrefix, now: now)
        if case .committed(let events) = result {
            metrics.fixes.increment(by: fixes.count)
            metrics.batches.increment()
            metrics.events.increment(by: events.count)
        }
        return result
    }
}
