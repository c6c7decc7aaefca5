import Foundation
import Geofencing

/// What a tenant sends when a device's event matches: `POST /v1/notification-rules`.
///
/// A rule selects events by kind and by region — a list of ids, an id prefix, a tier (`top`:
/// a region without a `parent`; `child`: one with) and a `source` — every selector given must
/// match. When several rules match one event, the first in id order is used: one event gives a
/// device at most one notification per token. Its title and body are
/// ``NotificationTemplate``s, checked when the rule is stored, together with the size of the
/// largest payload they can produce (``payloadBound``).
public struct NotificationRule: Sendable, Hashable {
    public enum Tier: String, Sendable, Hashable {
        case top, child
    }
    /// During the device's quiet hours: keep the notification until they end, or drop it.
    public enum QuietHoursAction: String, Sendable, Hashable {
        case hold, drop
    }

    public var id: String
    public var events: Set<TransitionEvent.Kind>
    public var regionIDs: [String]?
    public var regionPrefix: String?
    public var tier: Tier?
    public var source: String?
    public var pushType: PushMessage.Kind
    public var title: NotificationTemplate?
    public var body: NotificationTemplate?
    /// At most one notification per device and region in this many hours (0: no cap).
    public var capHours: Double
    public var quietHours: QuietHoursAction

    /// 12 hours: a shop greets a customer once a day, not at every pass through its door, and a
    /// commute that passes the same place morning and evening is greeted once each way at most.
    public static let defaultCapHours = 12.0
    /// The cap may not exceed 30 days (a longer memory is a user setting, not a rate limit).
    public static let maximumCapHours = 720.0
    /// APNs refuses a payload over 4,096 bytes (Apple's "Generating a remote notification");
    /// FCM's data limit is the same.
    public static let payloadLimitBytes = 4_096
    /// What the payload holds beside the title and body, at most: the JSON skeleton and the
    /// service's own keys (256 bytes), the event id (36), the event kind (5) and the region and
    /// device ids at their longest (256 scalars of 4 bytes each).
    public static let payloadOverheadBytes = 256 + 36 + 5 + 2 * 4 * Identifier.maximumLength
    /// At most this many rules per tenant: every event is matched against all of them.
    public static let maximumPerTenant = 100

    /// The largest payload the rule can produce, in bytes: ``payloadOverheadBytes`` plus the
    /// longest filled title and body (``NotificationTemplate/maximumEscapedBytes``).
    public var payloadBound: Int {
        Self.payloadOverheadBytes + (title?.maximumEscapedBytes ?? 0) + (body?.maximumEscapedBytes ?? 0)
    }

    /// Whether the rule selects `kind` in a region with these properties.
    func matches(kind: TransitionEvent.Kind, region: RegionFacts) -> Bool {
        guard events.contains(kind) else { return false }
        if let ids = regionIDs, !ids.contains(region.id) { return false }
        if let p = regionPrefix, !region.id.unicodeScalars.starts(with: p.unicodeScalars) { return false }
        if let tier, tier != (region.parent == nil ? .top : .child) { return false }
        if let source, source != region.source { return false }
        return true
    }
}

/// What rules and templates read of a region: its id and stored properties.
public struct RegionFacts: Sendable, Hashable {
    public var id: String
    public var name: String?
    public var parent: String?
    public var source: String?
    /// Every string property but `id` (numbers and booleans in their JSON text).
    public var metadata: [String: String]

    /// From a stored region feature (`nil` when the region is gone: only its id is known).
    init(id: String, feature: ServerJSON?) {
        self.id = id
        var metadata: [String: String] = [:]
        if case .object(let props)? = feature?["properties"] {
            for (k, v) in props where k != "id" {
                if case .string(let s) = v { metadata[k] = s } else if v != .null { metadata[k] = v.description }
            }
        }
        self.metadata = metadata
        name = metadata["name"]
        parent = metadata["parent"]
        source = metadata["source"]
    }
}

extension NotificationRule {
    /// Reads a rule from a request body (the id generated when absent); 400 naming the field.
    static func parse(_ value: ServerJSON, generatedID: String) throws(Problem) -> NotificationRule {
        let o = try JSONObjectReader(value, path: "")
        try o.refuseUnknownKeys([
            "id", "events", "regions", "regionPrefix", "tier", "source", "pushType", "title", "body", "capHours",
            "quietHours", "payloadBytesMaximum",
        ])
        let id: String
        if let given = try o.optionalString("id") {
            id = try Identifier.check(given, field: "id")
        } else {
            id = generatedID
        }
        var events: Set<TransitionEvent.Kind> = []
        let list = try o.array("events")
        for (i, e) in list.enumerated() {
            guard case .string(let s) = e, let kind = TransitionEvent.Kind(rawValue: s) else {
                throw Problem.badRequest(field: "events[\(i)]", detail: "events[\(i)] must be enter, exit or dwell")
            }
            events.insert(kind)
        }
        guard !events.isEmpty else {
            throw Problem.badRequest(field: "events", detail: "events must name at least one of enter, exit, dwell")
        }
        var regionIDs: [String]? = nil
        if o.has("regions") {
            let ids = try o.array("regions")
            guard (1...1_000).contains(ids.count) else {
                throw Problem.badRequest(field: "regions", detail: "regions lists 1 to 1000 region ids")
            }
            regionIDs = []
            for (i, r) in ids.enumerated() {
                guard case .string(let s) = r else {
                    throw Problem.badRequest(field: "regions[\(i)]", detail: "regions[\(i)] must be a string")
                }
                regionIDs!.append(try Identifier.check(s, field: "regions[\(i)]"))
            }
        }
        let prefix = try o.optionalString("regionPrefix").map { p throws(Problem) in
            try Identifier.check(p, field: "regionPrefix")
        }
        let tier = try o.optionalString("tier").map { t throws(Problem) in
            guard let tier = Tier(rawValue: t) else {
                throw Problem.badRequest(field: "tier", detail: "tier must be top or child")
            }
            return tier
        }
        let source = try o.optionalString("source")
        if let source, source.unicodeScalars.count > 64 {
            throw Problem.badRequest(field: "source", detail: "source is at most 64 characters")
        }
        let pushTypeName = try o.optionalString("pushType") ?? "alert"
        guard let pushType = PushMessage.Kind(rawValue: pushTypeName) else {
            throw Problem.badRequest(field: "pushType", detail: "pushType must be alert or background")
        }
        let title = try o.optionalString("title").map { t throws(Problem) in
            try NotificationTemplate(t, field: "title")
        }
        let body = try o.optionalString("body").map { t throws(Problem) in try NotificationTemplate(t, field: "body") }
        if pushType == .alert, title == nil, body == nil {
            throw Problem.badRequest(field: "title", detail: "an alert needs a title or a body")
        }
        if pushType == .background, title != nil || body != nil {
            throw Problem.badRequest(
                field: title != nil ? "title" : "body", detail: "a background notification shows no title or body")
        }
        let capHours = try o.optionalNumber("capHours") ?? defaultCapHours
        guard capHours.isFinite, (0...maximumCapHours).contains(capHours) else {
            throw Problem.badRequest(
                field: "capHours", detail: "capHours must be between 0 and \(Int(maximumCapHours))")
        }
        let quietName = try o.optionalString("quietHours") ?? "hold"
        guard let quiet = QuietHoursAction(rawValue: quietName) else {
            throw Problem.badRequest(field: "quietHours", detail: "quietHours must be hold or drop")
        }
        let rule = NotificationRule(
            id: id, events: events, regionIDs: regionIDs, regionPrefix: prefix, tier: tier, source: source,
            pushType: pushType, title: title, body: body, capHours: capHours, quietHours: quiet)
        guard rule.payloadBound <= payloadLimitBytes else {
            throw Problem.badRequest(
                field: (body?.maximumEscapedBytes ?? 0) >= (title?.maximumEscapedBytes ?? 0) ? "body" : "title",
                detail:
                    "with the longest values its placeholders can take, this rule's payload may reach \(rule.payloadBound) bytes; the limit is \(payloadLimitBytes) (docs/notifications.md, \"Payload size\")"
            )
        }
        return rule
    }

    /// The public and stored JSON shape (read back with ``parse(_:generatedID:)``).
    var json: ServerJSON {
        var o: [String: ServerJSON] = [
            "id": .string(id),
            "events": .array(TransitionEvent.Kind.allCases.filter(events.contains).map { .string($0.rawValue) }),
            "pushType": .string(pushType.rawValue),
            "capHours": .number(capHours),
            "quietHours": .string(quietHours.rawValue),
            "payloadBytesMaximum": .number(Double(payloadBound)),
        ]
        if let regionIDs { o["regions"] = .array(regionIDs.map { .string($0) }) }
        if let regionPrefix { o["regionPrefix"] = .string(regionPrefix) }
        if let tier { o["tier"] = .string(tier.rawValue) }
        if let source { o["source"] = .string(source) }
        if let title { o["title"] = .string(title.source) }
        if let body { o["body"] = .string(body.source) }
        return .object(o)
    }
}

extension JSONObjectReader {
    /// A 400 naming the first key (in order) that is not one of `known`: a misspelt setting
    /// (`capHour`) is refused, not silently left at its default.
    func refuseUnknownKeys(_ known: Set<String>) throws(Problem) {
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw Problem.badRequest(
                field: name(unknown),
                detail:
                    "\(name(unknown).prefix(64)) is not a known field (known: \(known.sorted().joined(separator: ", ")))"
            )
        }
    }
}
