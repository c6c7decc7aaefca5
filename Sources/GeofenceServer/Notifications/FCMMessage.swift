import Foundation
import GeoFormats

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
        var fields: [String: JSONValue] = ["token": .string(message.destination.token)]
        var payloadSize = 0
        if message.kind == .alert {
            guard message.title != nil || message.body != nil else { throw .emptyAlert }
            var notification: [String: JSONValue] = [:]
            notification["title"] = message.title.map { .string($0) }
            notification["body"] = message.body.map { .string($0) }
            fields["notification"] = .object(notification)
            payloadSize += size(of: notification)
        }
        if !message.data.isEmpty {
            let data = message.data.mapValues { JSONValue.string($0) }
            fields["data"] = .object(data)
            payloadSize += size(of: data)
        }
        guard payloadSize <= maximumPayloadBytes else {
            throw .tooLarge(bytes: payloadSize, limit: maximumPayloadBytes)
        }
        var android: [String: JSONValue] = ["priority": .string(message.kind == .alert ? "high" : "normal")]
        var apnsHeaders: [String: JSONValue] = [
            "apns-push-type": .string(message.kind.rawValue),
            "apns-priority": .string(message.kind == .alert ? "10" : "5"),
        ]
        if let collapseID = message.collapseID {
            android["collapse_key"] = .string(collapseID)
            apnsHeaders["apns-collapse-id"] = .string(collapseID)
        }
        if let expiresAt = message.expiresAt {
            // A duration in seconds with an "s" (protobuf's Duration in JSON).
            let seconds = Int64(max(0, min(expiresAt.timeIntervalSince(now), Double(longestTTLSeconds))))
            android["ttl"] = .string("\(seconds)s")
            apnsHeaders["apns-expiration"] = .string(
                String(max(1, Int64(expiresAt.timeIntervalSince1970.rounded(.down)))))
        }
        fields["android"] = .object(android)
        var apns: [String: JSONValue] = ["headers": .object(apnsHeaders)]
        if message.kind == .background {
            apns["payload"] = .object(["aps": .object(["content-available": .number(1)])])
        }
        fields["apns"] = .object(apns)
        return JSONValue.object(["message": .object(fields)]).encoded()
    }

    private static func size(of object: [String: JSONValue]) -> Int {
        JSONValue.object(object).description.utf8.count
    }
}
