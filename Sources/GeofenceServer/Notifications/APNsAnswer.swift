import Foundation
import GeoFormats
import NIOCore
import NIOHTTP1

/// One answer from APNs and what it means for the message (Apple: "Handling notification
/// responses from APNs").
struct APNsAnswer {
    var status: Int
    /// The `apns-id` APNs gives back: the one sent, or one it made.
    var apnsID: String?
    /// The `reason` of an error answer (`BadDeviceToken`, `Unregistered`, …).
    var reason: String?
    /// For `410`: when APNs last knew the token valid (milliseconds since 1970).
    var timestamp: Date?
    var retryAfter: String?

    init(status: Int, headers: HTTPHeaders, body: ByteBuffer) {
        self.status = status
        apnsID = headers.first(name: "apns-id")
        retryAfter = headers.first(name: "retry-after")
        let json = try? JSONValue(parsing: Array(body.readableBytesView))
        reason = json?["reason"]?.stringValue
        if let milliseconds = json?["timestamp"]?.doubleValue, milliseconds.isFinite {
            timestamp = Date(timeIntervalSince1970: milliseconds / 1000)
        }
    }

    func outcome(now: Date) -> PushOutcome {
        let reason = self.reason ?? "HTTP \(status)"
        switch status {
        case 200:
            return .delivered(serviceID: apnsID)
        case 410:
            // Unregistered or ExpiredToken: the app was removed or the token replaced.
            return .tokenInvalid(reason: reason, invalidSince: timestamp)
        case 400 where reason == "BadDeviceToken":
            return .tokenInvalid(reason: reason, invalidSince: nil)
        case 403 where reason == "ExpiredProviderToken":
            // The sender has dropped the token; the next try signs a fresh one.
            return .retry(reason: reason, retryAfter: nil)
        case 429, 500, 503:
            return .retry(reason: reason, retryAfter: PushOutcome.retryAfter(retryAfter, now: now))
        case 500...599:
            return .retry(reason: reason, retryAfter: nil)
        default:
            return .refused(reason: reason)
        }
    }
}
