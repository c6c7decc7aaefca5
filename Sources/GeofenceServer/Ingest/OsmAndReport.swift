import Foundation

/// One request in the OsmAnd protocol, as sent by Traccar Client and OsmAnd's live tracking,
/// read into the server's own fix format.
///
/// Three forms (Traccar's "OsmAnd" protocol page):
/// - parameters, in the query string (GET or POST) or a form body:
///   `?id=phone-7&lat=52.52&lon=13.40&timestamp=1764060000&accuracy=8&speed=12.5&bearing=90`
///   — `speed` in knots, `timestamp` Unix seconds, milliseconds, RFC 3339 or
///   `yyyy-MM-dd HH:mm:ss` (UTC), `location=LAT,LON` instead of `lat` and `lon`, `hdop` when
///   the client has no accuracy, `valid=false` for a fix the client itself distrusts;
/// - JSON, from Traccar Client 9 on:
///   `{"device_id":"phone-7","location":{"timestamp":"2026-11-25T09:00:00Z","coords":{"latitude":52.52,"longitude":13.40,"accuracy":8,"speed":6.4,"heading":90}}}`
///   — `speed` in m/s, −1 for an unknown speed or heading; `location` may be an array;
/// - a JSON array of parameter objects, the Traccar Client SDK's `uploadJson` option
///   (``init(locations:receivedAt:maxBatch:)``).
///
/// A report without a timestamp is stamped with the time it arrived (as Traccar does); one
/// without a position is a heartbeat (no fixes); the battery level (`batt` or `battery` in
/// percent, JSON `battery.level` as a fraction) is kept per device (``BatteryLevel``); altitude
/// and the other attributes are accepted and not used (the engine is 2-D).
struct OsmAndReport {
    /// The reporting device (`id`, `deviceid` or `device_id`).
    let device: String
    /// The fixes, in time order as sent.
    let fixes: [ProtocolFix]
    /// Whether the client marked its location invalid (`valid=false`): its fix is checked like
    /// any other but not used. `fixes` is empty for a heartbeat.
    let distrusted: Bool
    /// The battery level in percent, when the report carries one (``BatteryLevel``).
    let battery: Double?
    /// The time of the report that carried ``battery`` (its `timestamp`, else when it arrived).
    let batteryTime: Date?

    /// Metres of horizontal error per unit of HDOP, used only when a report gives `hdop` and
    /// no `accuracy`: the user-equivalent range error of a consumer GNSS receiver in open sky
    /// (docs/server.md, "Tracking apps").
    static let metresPerHDOP = 5.0
    /// Knots to metres per second (1 kn = 1,852 m per hour).
    static let metresPerSecondPerKnot = 1_852.0 / 3_600.0

    /// The parameters that carry a report (all but the key).
    static let reportParameters: Set<String> = [
        "id", "deviceid", "valid", "timestamp", "lat", "lon", "location", "accuracy", "hdop", "speed", "bearing",
        "heading", "batt", "battery",
    ]

    /// How the server's field names map to the form's, for problem answers.
    static let parameterNames: [String: String] = [
        "latitude": "lat", "longitude": "lon", "timestamp": "timestamp",
        "horizontalAccuracy": "accuracy", "speed": "speed", "course": "bearing",
    ]

    /// Reads the parameter form; `parameters` are already percent-decoded.
    init(parameters: [String: String], receivedAt: Date) throws(Problem) {
        guard let device = parameters["id"] ?? parameters["deviceid"], !device.isEmpty else {
            throw Problem.badRequest(field: "id", detail: "id (or deviceid) is required: the device's identifier")
        }
        self.device = device
        switch parameters["valid"] {
        case nil, "true", "1": distrusted = false
        // Acknowledged and not used; but a position it does carry must still be one.
        case "false", "0": distrusted = true
        case let other?:
            throw Problem.badRequest(
                field: "valid", detail: "valid must be true, false, 1 or 0, not \"\(other.prefix(64))\"")
        }
        let time = if let text = parameters["timestamp"], !text.isEmpty { try Self.parseTime(text) } else { receivedAt }
        let reader = ParameterReader(parameters)
        let batt = try reader.optional("batt")
        let alternative = try reader.optional("battery")
        battery = BatteryLevel.percent(batt ?? alternative)
        batteryTime = time
        // A heartbeat (Traccar Client 10 sends `id`, `timestamp` and `batt` when no fix is due);
        // the numbers it does carry are checked as in any report.
        guard ["lat", "lon", "location"].contains(where: { parameters[$0]?.isEmpty == false }) else {
            for name in ["accuracy", "hdop"] {
                if let value = try reader.optional(name), value < 0 {
                    throw Problem.badRequest(field: name, detail: "\(name) \(value) is negative")
                }
            }
            for name in ["speed", "bearing", "heading"] { _ = try reader.optional(name) }
            fixes = []
            return
        }
        var fields: [String: ServerJSON] = [:]
        if let location = parameters["location"], !location.isEmpty, parameters["lat"]?.isEmpty != false {
            let parts = location.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let lat = decimalNumber(parts[0]), let lon = decimalNumber(parts[1]) else {
                throw Problem.badRequest(
                    field: "location", detail: "location must be \"LATITUDE,LONGITUDE\", not \"\(location)\"")
            }
            fields["latitude"] = .number(lat)
            fields["longitude"] = .number(lon)
        } else {
            fields["latitude"] = .number(try reader.required("lat"))
            fields["longitude"] = .number(try reader.required("lon"))
        }
        fields["timestamp"] = .number(time.timeIntervalSince1970)
        if let accuracy = try reader.optional("accuracy") {
            fields["horizontalAccuracy"] = .number(accuracy)
        } else if let hdop = try reader.optional("hdop") {
            fields["horizontalAccuracy"] = .number(hdop * Self.metresPerHDOP)
        }
        if let knots = try reader.optional("speed"), knots >= 0 {
            fields["speed"] = .number(knots * Self.metresPerSecondPerKnot)
        }
        let course = parameters["bearing"] != nil ? try reader.optional("bearing") : try reader.optional("heading")
        if let course, course >= 0 {
            fields["course"] = .number(course)
        }
        fixes = [ProtocolFix(json: .object(fields), fieldNames: Self.parameterNames)]
    }

    /// Reads Traccar Client's JSON form; a `location` array of more than `maxBatch` fixes is a
    /// 413, as on the JSON API.
    init(json: ServerJSON, receivedAt: Date, maxBatch: Int) throws(Problem) {
        let root = try JSONObjectReader(json, path: "")
        device = try root.string("device_id")
        distrusted = false
        var battery: Double? = nil
        var batteryTime: Date? = nil
        guard let location = root.fields["location"] else {
            throw Problem.badRequest(field: "location", detail: "location is required")
        }
        let items: [ServerJSON]
        if case .array(let many) = location { items = many } else { items = [location] }
        guard !items.isEmpty else { throw Problem.badRequest(field: "location", detail: "location holds no fixes") }
        guard items.count <= maxBatch else {
            throw Problem.batchTooLarge(count: items.count, limit: maxBatch, field: "location")
        }
        var fixes: [ProtocolFix] = []
        for (i, item) in items.enumerated() {
            let path = items.count == 1 && !location.isArray ? "location" : "location[\(i)]"
            let fix = try Self.fix(fromJSON: item, path: path, receivedAt: receivedAt)
            fixes.append(fix)
            // The newest location's level that is one (they usually come oldest first).
            if let level = try Self.batteryPercent(item, path: path),
                let t = fix.json["timestamp"]?.doubleValue.map({ Date(timeIntervalSince1970: $0) }),
                batteryTime.map({ t >= $0 }) ?? true
            {
                (battery, batteryTime) = (level, t)
            }
        }
        self.fixes = fixes
        self.battery = battery
        self.batteryTime = batteryTime
    }

    /// `battery.level` of a JSON location (a fraction of 1, −1 for unknown), in percent.
    private static func batteryPercent(_ value: ServerJSON, path: String) throws(Problem) -> Double? {
        let location = try JSONObjectReader(value, path: path)
        guard let battery = location.fields["battery"], battery != .null else { return nil }
        return BatteryLevel.percent(
            fraction: try JSONObjectReader(battery, path: location.name("battery")).optionalNumber("level"))
    }

    private static func fix(fromJSON value: ServerJSON, path: String, receivedAt: Date) throws(Problem) -> ProtocolFix {
        let location = try JSONObjectReader(value, path: path)
        guard let coordsValue = location.fields["coords"] else {
            throw Problem.badRequest(field: location.name("coords"), detail: "\(location.name("coords")) is required")
        }
        let coords = try JSONObjectReader(coordsValue, path: location.name("coords"))
        let time: Date
        if location.has("timestamp") {
            let text = try location.string("timestamp")
            guard let parsed = FixJSON.parseRFC3339(text) else {
                throw Problem.badRequest(
                    field: location.name("timestamp"),
                    detail: "\(location.name("timestamp")) \"\(text)\" is not an RFC 3339 time")
            }
            time = parsed
        } else {
            time = receivedAt
        }
        var fields: [String: ServerJSON] = [
            "latitude": .number(try coords.number("latitude")),
            "longitude": .number(try coords.number("longitude")),
            "timestamp": .number(time.timeIntervalSince1970),
        ]
        // The background-location SDK behind Traccar Client reports −1 for unknown values.
        if let accuracy = try coords.optionalNumber("accuracy"), accuracy >= 0 {
            fields["horizontalAccuracy"] = .number(accuracy)
        }
        if let speed = try coords.optionalNumber("speed"), speed >= 0 { fields["speed"] = .number(speed) }
        if let heading = try coords.optionalNumber("heading"), heading >= 0 { fields["course"] = .number(heading) }
        let coordsPath = coords.path
        return ProtocolFix(
            json: .object(fields),
            fieldNames: [
                "latitude": "\(coordsPath).latitude", "longitude": "\(coordsPath).longitude",
                "timestamp": location.name("timestamp"), "horizontalAccuracy": "\(coordsPath).accuracy",
                "speed": "\(coordsPath).speed", "course": "\(coordsPath).heading",
            ])
    }

    /// Unix seconds (below 2³¹) or milliseconds, RFC 3339, or `yyyy-MM-dd HH:mm:ss` in UTC.
    static func parseTime(_ text: String) throws(Problem) -> Date {
        if let whole = Int64(text) {
            return Date(timeIntervalSince1970: whole < Int64(Int32.max) ? Double(whole) : Double(whole) / 1_000)
        }
        if let seconds = Double(text), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
        if text.contains("T"), let date = FixJSON.parseRFC3339(text) { return date }
        if let date = FixJSON.parseRFC3339(text.replacingOccurrences(of: " ", with: "T") + "Z") { return date }
        throw Problem.badRequest(
            field: "timestamp",
            detail: "timestamp \"\(text)\" is neither Unix seconds or milliseconds, RFC 3339, nor yyyy-MM-dd HH:mm:ss")
    }
}

/// Numeric form parameters with problems that name the parameter.
private struct ParameterReader {
    let parameters: [String: String]
    init(_ parameters: [String: String]) { self.parameters = parameters }

    func required(_ name: String) throws(Problem) -> Double {
        guard let value = try optional(name) else {
            throw Problem.badRequest(field: name, detail: "\(name) is required")
        }
        return value
    }

    /// A ``decimalNumber(_:)``; `nil` when absent or empty.
    func optional(_ name: String) throws(Problem) -> Double? {
        guard let text = parameters[name], !text.isEmpty else { return nil }
        guard let value = decimalNumber(text) else {
            throw Problem.badRequest(field: name, detail: "\(name) must be a finite number, not \"\(text)\"")
        }
        return value
    }
}

extension ServerJSON {
    fileprivate var isArray: Bool { if case .array = self { true } else { false } }
}
