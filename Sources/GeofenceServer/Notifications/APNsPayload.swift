import Foundation

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
        var aps: [String: Any] = [:]
        switch message.kind {
        case .alert:
            guard message.title != nil || message.body != nil else { throw .emptyAlert }
            var alert: [String: String] = [:]
            alert["title"] = message.title
            alert["body"] = message.body
            aps["alert"] = alert
        case .background:
            aps["content-available"] = 1
        }
        var root: [String: Any] = message.data
        root["aps"] = aps
        // Sorted keys: the same message always makes the same bytes (and the same size).
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]) else {
            throw .unencodable
        }
        guard data.count <= maximumBytes else { throw .tooLarge(bytes: data.count, limit: maximumBytes) }
        return data
    }
}
