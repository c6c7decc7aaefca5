import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

extension GeofenceServer {
    /// `GET /v1/events/stream?after=CURSOR&limit=N&timeout=S`: the tenant's events as
    /// Server-Sent Events (`id:` = cursor, `event:` = kind, `data:` = the event JSON), from the
    /// cursor on, live as they are committed.
    ///
    /// Resuming: reconnect with `Last-Event-ID` (or `after=`) set to the last `id:` seen; events
    /// come from the outbox in cursor order, so there are no gaps and no duplicates. A stream
    /// ends after `limit` events or `timeout` seconds (default 25, at most 300) — clients such as
    /// `EventSource` reconnect by themselves — and on server shutdown. A cursor older than the
    /// events retention kept is a 410 problem (``requireRetained(after:tenant:field:store:retention:)``).
    func addStreamRoutes(to v1: RouterGroup<APIRequestContext>) {
        let store = self.store
        let poll = configuration.streamPollInterval
        let retention = configuration.eventRetention

        v1.get("events/stream") { request, context -> Response in
            let tenant = try context.requireTenant()
            let cursor: Int64
            if let header = request.headers[.lastEventID] {
                cursor = try parseCursor(header, field: "Last-Event-ID")
                try await requireRetained(
                    after: cursor, tenant: tenant, field: "Last-Event-ID", store: store, retention: retention)
            } else {
                cursor = try request.cursorQuery("after")
                if request.uri.queryParameters.get("after") != nil {
                    try await requireRetained(
                        after: cursor, tenant: tenant, field: "after", store: store, retention: retention)
                }
            }
            let limit = try request.intQuery("limit", default: Int.max, range: 1...Int.max)
            let timeout = try request.intQuery("timeout", default: 25, range: 1...300)
            let start = ContinuousClock.now
            let from = cursor
            let body = ResponseBody { writer in
                var sent = 0
                var after = from
                while sent < limit, ContinuousClock.now - start < .seconds(timeout), !Task.isCancelled,
                    !Task.isShuttingDownGracefully
                {
                    let events = try await store.events(tenant: tenant, after: after, limit: min(500, limit - sent))
                    if events.isEmpty {
                        try? await Task.sleep(for: poll)
                        continue
                    }
                    var text = ""
                    for e in events {
                        let c = e["cursor"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "0"
                        let kind = e["event"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? "event"
                        text += "id: \(c)\nevent: \(kind)\ndata: \(String(decoding: e.encoded(), as: UTF8.self))\n\n"
                        after = Int64(c) ?? after
                    }
                    sent += events.count
                    try await writer.write(ByteBuffer(string: text))
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }
}

extension HTTPField.Name {
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

extension ServerJSON {
    subscript(_ key: String) -> ServerJSON? {
        if case .object(let o) = self { o[key] } else { nil }
    }
}
