import Foundation

/// One OwnTracks HTTP-mode request, read into the server's own fix format.
///
/// The OwnTracks apps POST each message they would publish over MQTT as one JSON object
/// (booklet, "HTTP" and "JSON" chapters). Only `_type: "location"` carries a fix:
///
/// ```json
/// {"_type":"location","lat":48.85833,"lon":2.29513,"tst":1497476456,"acc":12,"vel":4,"cog":270,"tid":"JJ"}
/// ```
///
/// `lat`, `lon` (degrees) and `tst` (Unix seconds) are required; `acc` (metres), `vel` (km/h),
/// `cog` (degrees) and `batt` (battery, percent: ``BatteryLevel``) are optional. Every other message type (`transition`, `waypoint`,
/// `lwt`, `status`, a zero-length body sent when a friend is removed, …) is acknowledged and
/// ignored, as the apps expect. Encrypted payloads are refused: the server has no key for them.
struct OwnTracksMessage {
    /// The fix, or `nil` for a message without one.
    let fix: ProtocolFix?
    /// The tracker id (`tid`), used for the device name when the request does not name one.
    let trackerID: String?
    /// The MQTT-style topic (`owntracks/USER/DEVICE`), when the app sends one.
    let topic: String?
    /// The battery level in percent (`batt`), when the message carries one (``BatteryLevel``).
    let battery: Double?
    /// The message's time (`tst`), when it carries one.
    let time: Date?

    /// How OwnTracks' field names map to the server's, for problem answers that name the
    /// field as the client sent it.
    static let fieldNames: [String: String] = [
        "latitude": "lat", "longitude": "lon", "timestamp": "tst",
        "horizontalAccuracy": "acc", "speed": "vel", "course": "cog",
    ]

    /// Reads a request body (`nil` or empty: no message).
    init(body: ServerJSON?) throws(Problem) {
        guard let body else {
            fix = nil
            trackerID = nil
            topic = nil
            battery = nil
            self.time = nil
            return
        }
        let o = try JSONObjectReader(body, path: "")
        guard let type = o.fields["_type"] else {
            throw Problem.badRequest(field: "_type", detail: "_type is required (an OwnTracks message names its type)")
        }
        guard case .string(let kind) = type else {
            throw Problem.badRequest(field: "_type", detail: "_type must be a string, not \(type.typeName)")
        }
        if kind == "encrypted" {
            throw Problem.badRequest(
                field: "_type",
                detail: "encrypted OwnTracks payloads are not supported: turn off encryption in the app's settings")
        }
        trackerID = try o.has("tid") ? o.string("tid") : nil
        topic = try o.has("topic") ? o.string("topic") : nil
        // The location fields are checked in every message that carries them (a `transition`
        // has them too), so a malformed one is refused whatever its type.
        let latitude = try o.optionalNumber("lat")
        let longitude = try o.optionalNumber("lon")
        let time = try o.optionalNumber("tst")
        let accuracy = try o.optionalNumber("acc")
        let kmh = try o.optionalNumber("vel")
        let course = try o.optionalNumber("cog")
        battery = BatteryLevel.percent(try o.optionalNumber("batt"))
        self.time = time.map { Date(timeIntervalSince1970: $0) }
        guard kind == "location" else {
            fix = nil
            return
        }
        guard let latitude else { throw Problem.badRequest(field: "lat", detail: "lat is required") }
        guard let longitude else { throw Problem.badRequest(field: "lon", detail: "lon is required") }
        guard let time else { throw Problem.badRequest(field: "tst", detail: "tst is required") }
        var fields: [String: ServerJSON] = [
            "latitude": .number(latitude), "longitude": .number(longitude), "timestamp": .number(time),
        ]
        if let accuracy { fields["horizontalAccuracy"] = .number(accuracy) }
        // The apps send -1 (or nothing) when the platform has no speed or course.
        if let kmh, kmh >= 0 { fields["speed"] = .number(kmh / 3.6) }
        if let course, course >= 0 { fields["course"] = .number(course) }
        fix = ProtocolFix(json: .object(fields), fieldNames: Self.fieldNames)
    }

    /// The device this message reports for: `USER/DEVICE` from the `X-Limit-U` / `X-Limit-D`
    /// headers or the `u` / `d` query parameters the apps add, else from the topic, else the
    /// Basic-auth user with the tracker id. `nil` when nothing names a device.
    func deviceName(user: String?, device: String?, basicUser: String?) -> String? {
        if let user, let device, !user.isEmpty, !device.isEmpty { return "\(user)/\(device)" }
        if let topic {
            let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count >= 3, parts[0] == "owntracks", !parts[1].isEmpty, !parts[2].isEmpty {
                return "\(parts[1])/\(parts[2])"
            }
        }
        if let device, !device.isEmpty { return (user ?? basicUser).map { "\($0)/\(device)" } ?? device }
        if let trackerID, !trackerID.isEmpty { return (user ?? basicUser).map { "\($0)/\(trackerID)" } ?? trackerID }
        return nil
    }
}
