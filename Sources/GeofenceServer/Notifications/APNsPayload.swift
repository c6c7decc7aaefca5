import Foundation
import GeoFormats

/// The JSON body APNs hands to the app: `{"aps":{"alert":{"title","body"}}}` for an alert,
/// `{"aps":{"content-available":1}}` for a background wake-up, and the message's custom keys
/// beside `aps`.
///
/// Rules check a message with `APNsPayload.encode` when they are made, so a notification too
/// large for APNs is refused when its rule is written, not each time it would be sent.
public enum APNsPayload {
    /// APNs refuses a larger payload (`413 PayloadTooLarge`); VoIP's 5 KB does not apply here.
    public static let maximumBytes = 4096
    /// APNs refuses a longer `apns-collapse-id` (`BadCollapseId`).
    public static let maximumCollapseIDBytes = 64

    /// The payload for `message`, or the reason APNs would refuse it.
    public static func encode(_ message: PushMessage) throws(PushPayloadError) -> Data {
        if message.data.keys.contains("aps") { throw .reservedKey("aps") }
        var aps: [String: JSONValue] = [:]
        switch message.kind {
        case .alert:
            guard message.title != nil || message.body != nil else { throw .emptyAlert }
            var alert: [String: JSONValue] = [:]
            alert["title"] = message.title.map { .string($0) }
            alert["body"] = message.body.map { .string($0) }
            aps["alert"] = .object(alert)
        case .background:
            aps["content-available"] = .number(1)
        }
        var root = message.data.mapValues { JSONValue.string($0) }
        root["aps"] = .object(aps)
        // Keys sorted: the same message always makes the same bytes (and the same size).
        let data = JSONValue.object(root).encoded()
        guard data.count <= maximumBytes else { throw .tooLarge(bytes: data.count, limit: maximumBytes) }
        return data
    }
}
