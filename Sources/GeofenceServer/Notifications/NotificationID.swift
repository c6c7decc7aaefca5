import Crypto
import Foundation

/// The ids of one notification, derived from the event and the token alone, so that a re-send
/// after a crash (the service answered, the log was not updated) carries the same `apns-id` and
/// collapse id, and the service or the phone replaces rather than duplicates it.
enum NotificationID {
    /// The namespace of notification ids (a fixed random UUID; RFC 9562 §5.5).
    static let namespace = UUID(uuidString: "6f1d6c1e-5d0b-4b8e-9a43-2b7c0e9b4f3a")!

    /// A name-based UUID, version 5 (RFC 9562 §5.5: SHA-1 of the namespace and the name), of
    /// `eventID` and `token`.
    static func messageID(eventID: String, token: String) -> UUID {
        var input = withUnsafeBytes(of: namespace.uuid) { Data($0) }
        input.append(contentsOf: eventID.utf8)
        input.append(0) // the two parts cannot run into each other
        input.append(contentsOf: token.utf8)
        var bytes = Array(Insecure.SHA1.hash(data: input).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50 // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80 // variant RFC 9562
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    /// The collapse id: the event's own id (36 bytes, under APNs's 64), the same for every token
    /// of the event.
    static func collapseID(eventID: String) -> String { String(eventID.prefix(64)) }
}
