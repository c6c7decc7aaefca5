import Foundation
import NIOHTTP1

/// The headers of one APNs request (Apple: "Sending notification requests to APNs").
enum APNsRequestHeaders {
    static func make(for message: PushMessage, topic: String, jwt: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "authorization", value: "bearer \(jwt)")
        headers.add(name: "apns-topic", value: topic)
        headers.add(name: "apns-push-type", value: message.kind.rawValue)
        // Background notifications must go at priority 5; 10 is an error for them.
        headers.add(name: "apns-priority", value: message.kind == .alert ? "10" : "5")
        headers.add(name: "apns-id", value: message.id.uuidString.lowercased())
        if let collapseID = message.collapseID {
            headers.add(name: "apns-collapse-id", value: collapseID)
        }
        if let expiresAt = message.expiresAt {
            // Seconds since 1970. 0 means "try once, store nothing", so a time already past is
            // sent as 1: expired, which is what it is.
            let seconds = max(1, Int64(expiresAt.timeIntervalSince1970.rounded(.down)))
            headers.add(name: "apns-expiration", value: String(seconds))
        }
        headers.add(name: "content-type", value: "application/json")
        return headers
    }
}
