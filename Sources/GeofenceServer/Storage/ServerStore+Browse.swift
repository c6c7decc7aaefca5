import Foundation
import Geofencing

/// What `GET /v1/events/history` filters on; `nil` fields match anything.
///
/// Times are compared to the second: an event matches when its `time`, with any fraction
/// dropped, is at or after `from` and before `to` (both also read to the second). The stores
/// compare the first 19 characters of the RFC 3339 text (`2026-11-27T10:15:00`), which order
/// as the times do.
public struct EventFilter: Sendable, Hashable {
    public var device: String?
    public var region: String?
    /// `enter`, `exit` or `dwell`.
    public var kind: String?
    public var from: Date?
    public var to: Date?

    public init(
        device: String? = nil, region: String? = nil, kind: String? = nil, from: Date? = nil, to: Date? = nil
    ) {
        self.device = device
        self.region = region
        self.kind = kind
        self.from = from
        self.to = to
    }

    /// How many events a page of `limit` examines: `limit` when the stores' indexes select
    /// exactly the matches (no kind or time filter), else `scan` (never below `limit`).
    func examined(limit: Int, scan: Int) -> Int {
        kind == nil && from == nil && to == nil ? limit : max(scan, limit)
    }

    /// `from` as the stores compare it (`YYYY-MM-DDTHH:MM:SS`, UTC).
    var fromSecond: String? { from.map(EventFilter.second) }
    /// `to` as the stores compare it.
    var toSecond: String? { to.map(EventFilter.second) }

    static func second(_ d: Date) -> String {
        String(FixJSON.formatRFC3339(Date(timeIntervalSince1970: d.timeIntervalSince1970.rounded(.down))).prefix(19))
    }
}

/// A page of ``ServerStore/eventHistory(tenant:filter:before:limit:scan:)``.
///
/// Kind and time are not indexed: a page reads the events its device, region or tenant index
/// selects, newest first, and keeps those that match. So that a filter matching few of a
/// tenant's millions of events costs bounded work, a page examines at most `scan` events and
/// may then end before `limit` with a `next` (possibly with no events at all).
public struct HistoryPage: Sendable {
    /// The matching events, newest first, each with its `cursor`.
    public var events: [ServerJSON]
    /// The `before` of the next page: the last event's cursor when the page is full, the
    /// lowest cursor examined when the scan stopped first; `nil` when nothing older matches.
    public var next: Int64?

    public init(events: [ServerJSON], next: Int64?) {
        self.events = events
        self.next = next
    }

    /// The page from what the store read: the matches (at most `limit`), how many events it
    /// examined (at most `scan`) and the lowest cursor among them.
    init(events: [ServerJSON], limit: Int, examined: Int, scan: Int, lowest: Int64?) {
        var next: Int64? = nil
        if events.count == limit, let c = events.last?["cursor"]?.stringValue {
            next = Int64(c)
        } else if examined >= scan {
            next = lowest
        }
        self.init(events: events, next: next)
    }
}

/// Where a page of ``ServerStore/deviceList(tenant:prefix:after:limit:scan:)`` ends: the last
/// device's last-seen time and id. As a query parameter: `SECONDS|ID` (``text``).
public struct DeviceCursor: Sendable, Hashable {
    public var lastSeen: Double
    public var id: String

    public init(lastSeen: Double, id: String) {
        self.lastSeen = lastSeen
        self.id = id
    }

    /// `SECONDS|ID`: the seconds as Swift prints a `Double` (it reads back exactly).
    var text: String { "\(lastSeen)|\(id)" }

    /// Reads ``text``; `nil` when it is not one. The seconds must be written as JSON writes a
    /// number, with at most 20 digits on each side of the point and a two-digit exponent (the
    /// OpenAPI document's pattern for `after`), so that the schema and the server agree exactly.
    init?(text: String) {
        // By scalar, not by Character: an id may begin with a combining mark or an emoji
        // modifier, which would make one grapheme of the bar and itself.
        guard let bar = text.unicodeScalars.firstIndex(of: "|") else { return nil }
        let scalars = text.unicodeScalars
        let seconds = Substring(scalars[..<bar])
        guard seconds.wholeMatch(of: /-?[0-9]{1,20}(\.[0-9]{1,20})?(e[-+]?[0-9]{1,2})?/) != nil,
            let t = Double(seconds), t.isFinite
        else { return nil }
        let id = Identifier.normalized(String(scalars[scalars.index(after: bar)...]))
        guard Identifier.flaw(id) == nil else { return nil }
        self.init(lastSeen: t, id: id)
    }
}

/// A page of ``ServerStore/deviceList(tenant:prefix:after:limit:scan:)``.
///
/// No index orders a prefix's devices by last seen: a page with a prefix walks the tenant's
/// devices last seen first and keeps those that match. So that a prefix matching few of a
/// tenant's many devices costs bounded work, it examines at most `scan` devices and may then
/// end before `limit` with a `next` (possibly with no devices at all).
public struct DevicePage: Sendable {
    public var rows: [DeviceRow]
    /// Where the next page starts: after the last row when the page is full, after the last
    /// device examined when the scan stopped first; `nil` when nothing further matches.
    public var next: DeviceCursor?

    public init(rows: [DeviceRow], next: DeviceCursor?) {
        self.rows = rows
        self.next = next
    }

    /// The page from what the store read: the matches (at most `limit`), how many devices it
    /// examined (at most `scan`) and the last of them in list order.
    init(rows: [DeviceRow], limit: Int, examined: Int, scan: Int, lastExamined: DeviceCursor?) {
        var next: DeviceCursor? = nil
        if rows.count == limit, let last = rows.last {
            next = DeviceCursor(lastSeen: last.lastSeen, id: last.id)
        } else if examined >= scan {
            next = lastExamined
        }
        self.init(rows: rows, next: next)
    }
}

/// One device of ``ServerStore/deviceList(tenant:prefix:after:limit:scan:)``.
public struct DeviceRow: Sendable, Hashable {
    public var id: String
    /// The last accepted fix, as stored (FixJSON: `latitude`, `longitude`, `timestamp` in
    /// seconds, `horizontalAccuracy` when known).
    public var lastFix: ServerJSON
    /// The last fix's time, in seconds since 1970.
    public var lastSeen: Double

    public init(id: String, lastFix: ServerJSON, lastSeen: Double) {
        self.id = id
        self.lastFix = lastFix
        self.lastSeen = lastSeen
    }
}

/// One fix batch of a device read back from the journal, with where it lies in the device's
/// batches (pass it as `before` for older ones).
public struct JournalBatch: Sendable {
    public var position: Int64
    public var fixes: [LocationFix]

    public init(position: Int64, fixes: [LocationFix]) {
        self.position = position
        self.fixes = fixes
    }
}

/// A device's last reported battery level (``ServerStore/recordBattery(tenant:device:percent:at:)``).
public struct BatteryReport: Sendable, Hashable {
    /// Percent, 0–100.
    public var percent: Double
    /// The report's own time, in seconds since 1970, clamped to 1970 … its arrival (the arrival
    /// time for a report without one), so that a delayed report never replaces a newer level.
    public var time: Double

    public init(percent: Double, time: Double) {
        self.percent = percent
        self.time = time
    }
}
