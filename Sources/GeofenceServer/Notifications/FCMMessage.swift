import Foundation

/// The body of an FCM HTTP v1 `messages:send` request:
/// `{"message":{"token","notification":{"title","body"},"data":{…},"android":{…},"apns":{…}}}`.
///
/// An alert carries `notification` (shown by the system on Android and, through FCM's APNs
/// bridge, on iOS); a background message carries only `data`, at normal priority on Android and
/// as `content-available` at priority 5 on iOS.
public enum FCMMessage {
    /// FCM refuses a message whose notification and data together are larger.
    public static let maximumPayloadBytes = 4096
    /// FCM keeps an undelivered message at most four weeks.
    static let longestTTLSeconds: Int64 = 28 * 86_400

    /// The request body for `message`, or the reason FCM would refuse it.
    public static func encode(_ message: PushMessage, now: Date) throws(PushPayloadError) -> Data {
        var fields: [String: Any] = ["token": message.destination.token]
        var payloadSize = 0
        if message.kind == .alert {
            guard message.title != nil || message.body != nil else { throw .emptyAlert }
            var notification: [String: String] = [:]
            notification["title"] = message.title
            notification["body"] = message.body
            fields["notification"] = notification
            payloadSize += try size(of: notification)
        }
        if !message.data.isEmpty {
            fields["data"] = message.data
            payloadSize += try size(of: message.data)
        }
        guard payloadSize <= maximumPayloadBytes else {
            throw .tooLarge(bytes: payloadSize, limit: maximumPayloadBytes)
        }
        var android: [String: Any] = ["priority": message.kind == .alert ? "high" : "normal"]
        var apnsHeaders = [
            "apns-push-type": message.kind.rawValue, "apns-priority": message.kind == .alert ? "10" : "5",
        ]
        if let collapseID = message.collapseID {
            android["collapse_key"] = collapseID
            apnsHeaders["apns-collapse-id"] = collapseID
        }
        if let expiresAt = message.expiresAt {
            // A duration in seconds with an "s" (protobuf's Duration in JSON).
            let seconds = Int64(max(0, min(expiresAt.timeIntervalSince(now), Double(longestTTLSeconds))))
            android["ttl"] = "\(seconds)s"
            apnsHeaders["apns-expiration"] = String(max(1, Int64(expiresAt.timeIntervalSince1970.rounded(.down))))
        }
        fields["android"] = android
        var apns: [String: Any] = ["headers": apnsHeaders]
        if message.kind == .background { apns["payload"] = ["aps": ["content-available": 1]] }
        fields["apns"] = apns
        guard let data = try? JSONSerialization.data(withJSONObject: ["message": fields], options: [.sortedKeys]) else {
            throw .unencodable
        }
        return data
    }

    private static func size(of object: [String: String]) throws(PushPayloadError) -> Int {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { throw .unencodable }
        return data.count
    }
}
