import Foundation
import Geofencing
import HTTPTypes
import Hummingbird

extension GeofenceServer {
    /// `/v1/ingest/owntracks` and `/v1/ingest/osmand`: the tracking apps people already run,
    /// each in its own protocol, ending in the same ingestion path as
    /// `POST /v1/devices/{id}/locations` (same validation, events and webhooks), under the
    /// apps' answer policy (``ingestAppReport(tenant:device:fixes:distrusted:now:)``): a report
    /// understood but not used is acknowledged and counted, never refused.
    ///
    /// These clients cannot all send a bearer header, so the key may also come as the password
    /// of HTTP Basic authentication (OwnTracks) or as the `key` query parameter (Traccar Client,
    /// which is configured with a URL only); see ``DeviceKeyMiddleware``.
    func addIngestRoutes(to router: Router<APIRequestContext>) {
        let group = router.group("v1/ingest").add(middleware: DeviceKeyMiddleware(keys: keys))
        let config = configuration
        let clock = self.clock

        group.post("owntracks") { request, context -> Response in
            let body = try await request.optionalJSONBody(limit: config.maxBodyBytes)
            if case .array(let items)? = body, items.count > config.maxBatchSize {
                throw Problem.batchTooLarge(count: items.count, limit: config.maxBatchSize, field: "body")
            }
            let message = try OwnTracksMessage(body: body)
            // The apps expect a JSON array (commands for the device); we send none.
            let answer = Response.json(.array([]))
            guard let fix = message.fix else { return answer }
            let query = try FormParameters.decode(request.uri.query.map { $0[...] } ?? "")
            guard
                let name = message.deviceName(
                    user: request.headers[.xLimitUser] ?? query["u"],
                    device: request.headers[.xLimitDevice] ?? query["d"],
                    basicUser: DeviceCredentials(request).basicUser)
            else {
                throw Problem.badRequest(
                    field: "X-Limit-D",
                    detail:
                        "no device named: set the user and device name in the app (X-Limit-U / X-Limit-D), a topic, or a tid"
                )
            }
            let device = try Identifier.check(name, field: "device")
            let tenant = try context.tenant(reportingFor: device)
            let now = clock()
            _ = try await self.ingestAppReport(
                tenant: tenant, device: device, fixes: [fix], distrusted: false, now: now)
            try await self.keepBattery(
                message.battery, reportedAt: message.time, tenant: tenant, device: device, now: now)
            return answer
        }

        let osmand: @Sendable (Request, APIRequestContext) async throws -> Response = { request, context in
            var parameters = try FormParameters.decode(request.uri.query.map { $0[...] } ?? "")
            parameters["key"] = nil
            let report: OsmAndReport
            if let body = try await request.optionalBody(limit: config.maxBodyBytes) {
                // Traccar Client's JSON forms, by its media type or its first byte; anything else is a form.
                let declaredJSON = request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true
                if declaredJSON || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "[") {
                    if let mixed = parameters.keys.sorted().first(where: OsmAndReport.reportParameters.contains) {
                        throw Problem.badRequest(
                            field: mixed,
                            detail: "\(mixed): a report comes either as a JSON body or as parameters, not both")
                    }
                    let json = try ServerJSON.parse(body)
                    if case .array(let locations) = json {
                        // The Traccar Client SDK's `uploadJson` form: a flat array of locations.
                        report = try OsmAndReport(
                            locations: locations, receivedAt: clock(), maxBatch: config.maxBatchSize)
                    } else {
                        report = try OsmAndReport(json: json, receivedAt: clock(), maxBatch: config.maxBatchSize)
                    }
                } else {
                    let form = try FormParameters.decode(String(decoding: body, as: UTF8.self)[...])
                    report = try OsmAndReport(
                        parameters: parameters.merging(form) { query, _ in query }, receivedAt: clock())
                }
            } else {
                report = try OsmAndReport(parameters: parameters, receivedAt: clock())
            }
            let device = try Identifier.check(report.device, field: "id")
            let tenant = try context.tenant(reportingFor: device)
            let now = clock()
            _ = try await self.ingestAppReport(
                tenant: tenant, device: device, fixes: report.fixes, distrusted: report.distrusted, now: now)
            try await self.keepBattery(
                report.battery, reportedAt: report.batteryTime, tenant: tenant, device: device, now: now)
            return Response(status: .ok)
        }
        group.get("osmand", use: osmand)
        group.post("osmand", use: osmand)
    }
}

extension Request {
    /// The body's bytes (413 problem beyond `limit`), or `nil` when it is empty.
    func optionalBody(limit: Int) async throws -> Data? {
        var request = self
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: limit) } catch {
            throw Problem(
                status: .contentTooLarge, detail: "the request body is larger than \(limit) bytes", field: "body")
        }
        return buffer.readableBytes == 0 ? nil : Data(buffer: buffer)
    }

    /// The body parsed as JSON, or `nil` when it is empty.
    func optionalJSONBody(limit: Int) async throws -> ServerJSON? {
        try await optionalBody(limit: limit).map { try ServerJSON.parse($0) }
    }
}

extension HTTPField.Name {
    /// OwnTracks' user name header (HTTP mode).
    static let xLimitUser = Self("X-Limit-U")!
    /// OwnTracks' device name header (HTTP mode).
    static let xLimitDevice = Self("X-Limit-D")!
}
