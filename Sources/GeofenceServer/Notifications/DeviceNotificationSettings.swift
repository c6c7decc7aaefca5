import Foundation

/// A device's own choices about notifications: `PUT /v1/devices/{id}/notification-settings`.
///
/// ```json
/// {"optOut": false, "timeZone": "Asia/Shanghai", "quietHours": {"start": "22:00", "end": "07:00"}}
/// ```
///
/// Quiet hours are local wall-clock times in the device's IANA time zone (`UTC` when none is
/// given); a window whose end is before its start spans midnight. A notification planned during
/// quiet hours is held until they end or dropped, as its rule says
/// (``NotificationRule/QuietHoursAction``).
public struct DeviceNotificationSettings: Sendable, Hashable {
    /// A local time of day, in minutes after midnight.
    public struct LocalTime: Sendable, Hashable {
        public var minutes: Int
        var text: String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }

        /// `HH:MM`, 00:00 to 23:59.
        init?(_ text: String) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
                parts.allSatisfy({ $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
                let h = Int(parts[0]), let m = Int(parts[1]), h < 24, m < 60
            else { return nil }
            minutes = h * 60 + m
        }
    }

    public var optOut: Bool = false
    public var timeZone: TimeZone = TimeZone(identifier: "UTC")!
    public var quietHours: (start: LocalTime, end: LocalTime)? = nil

    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.optOut == b.optOut && a.timeZone == b.timeZone && a.quietHours?.start == b.quietHours?.start
            && a.quietHours?.end == b.quietHours?.end
    }
    public func hash(into h: inout Hasher) {
        h.combine(optOut)
        h.combine(timeZone)
        h.combine(quietHours?.start)
        h.combine(quietHours?.end)
    }

    /// When the quiet hours that contain `now` end, or `nil` when `now` is not in quiet hours.
    public func quietHoursEnd(containing now: Date) -> Date? {
        guard let q = quietHours, q.start != q.end else { return nil }
        let (start, end) = q
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let midnight = calendar.startOfDay(for: now)
        let c = calendar.dateComponents([.hour, .minute], from: now)
        let minute = (c.hour ?? 0) * 60 + (c.minute ?? 0)
        let inside =
            start.minutes < end.minutes
            ? (start.minutes..<end.minutes).contains(minute)
            : minute >= start.minutes || minute < end.minutes
        guard inside else { return nil }
        // The end is today when it is still ahead, otherwise tomorrow (a window over midnight).
        let day = minute < end.minutes ? midnight : calendar.date(byAdding: .day, value: 1, to: midnight)!
        // Wall-clock arithmetic: a day with a daylight-saving change still ends at its local time.
        return calendar.date(bySettingHour: end.minutes / 60, minute: end.minutes % 60, second: 0, of: day)
            ?? now.addingTimeInterval(3_600)
    }
}

extension DeviceNotificationSettings {
    /// Reads a settings body; 400 naming the field.
    static func parse(_ value: ServerJSON) throws(Problem) -> DeviceNotificationSettings {
        let o = try JSONObjectReader(value, path: "")
        try o.refuseUnknownKeys(["optOut", "timeZone", "quietHours"])
        var s = DeviceNotificationSettings()
        s.optOut = try o.optionalBool("optOut") ?? false
        if let name = try o.optionalString("timeZone") {
            guard name.utf8.count <= 64, let zone = TimeZone(identifier: name) else {
                throw Problem.badRequest(
                    field: "timeZone", detail: "timeZone must be an IANA time zone name such as Asia/Shanghai")
            }
            s.timeZone = zone
        }
        if o.has("quietHours") {
            let q = try JSONObjectReader(o.fields["quietHours"]!, path: "quietHours")
            try q.refuseUnknownKeys(["start", "end"])
            func time(_ key: String) throws(Problem) -> LocalTime {
                guard let t = LocalTime(try q.string(key)) else {
                    throw Problem.badRequest(field: q.name(key), detail: "\(q.name(key)) must be a local time HH:MM")
                }
                return t
            }
            s.quietHours = (try time("start"), try time("end"))
        }
        return s
    }

    /// The public and stored JSON shape.
    var json: ServerJSON {
        var o: [String: ServerJSON] = ["optOut": .bool(optOut), "timeZone": .string(timeZone.identifier)]
        if let q = quietHours {
            o["quietHours"] = .object(["start": .string(q.start.text), "end": .string(q.end.text)])
        }
        return .object(o)
    }

    /// From a stored document; the defaults for a missing or unreadable one.
    init(stored: ServerJSON?) {
        self = stored.flatMap { try? Self.parse($0) } ?? DeviceNotificationSettings()
    }
}
