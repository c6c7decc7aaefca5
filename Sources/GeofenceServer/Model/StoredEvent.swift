import Foundation
import Geofencing

/// One transition event as the server stores and publishes it: the engine's
/// ``TransitionEvent`` plus a globally unique `id` (the idempotency key receivers dedup on)
/// and the outbox `cursor` (a per-store increasing number; `GET /v1/events?after=` pages by it).
public struct StoredEvent: Sendable, Hashable {
    /// Unique event id (UUID string), the same in the API, the stream and every webhook delivery.
    public var id: String
    /// Outbox position, assigned by the store; 0 until stored.
    public var cursor: Int64
    /// The tenant that owns the device and region.
    public var tenant: String
    /// The engine event.
    public var event: TransitionEvent

    public init(id: String, cursor: Int64 = 0, tenant: String, event: TransitionEvent) {
        self.id = id
        self.cursor = cursor
        self.tenant = tenant
        self.event = event
    }

    /// ``json`` as the outbox row's text (its `cursor` is the row's id, filled in when read).
    package var outboxText: String { String(decoding: json.encoded(), as: UTF8.self) }

    /// The public JSON shape (docs/server.md, openapi/openapi.json `Event`).
    package var json: ServerJSON {
        let e = event
        return .object([
            "id": .string(id),
            "cursor": .string(String(cursor)),
            "event": .string(e.kind.rawValue),
            "device": .string(e.subject),
            "region": .string(e.regionID),
            "time": .string(FixJSON.formatRFC3339(e.time)),
            "crossedAt": .string(FixJSON.formatRFC3339(e.crossedAt)),
            "latitude": .number(e.fix.coordinate.latitude),
            "longitude": .number(e.fix.coordinate.longitude),
            "initial": .bool(e.isInitial),
        ])
    }
}
