import Foundation
import GeoFormats
import NIOCore

/// One answer from FCM's `messages:send` and what it means for the message (Google: FCM HTTP v1
/// API reference, `ErrorCode`): `{"name"}` on success, else
/// `{"error":{"code","status","message","details":[{"errorCode"}]}}`.
struct FCMAnswer {
    var status: Int
    var retryAfter: String?
    /// The message's name on success (`projects/<project>/messages/<id>`).
    var name: String?
    /// FCM's own code from `details` (`UNREGISTERED`, `INVALID_ARGUMENT`, …), else the RPC status.
    var errorCode: String?
    var errorMessage: String?

    init(status: Int, retryAfter: String?, body: ByteBuffer) {
        self.status = status
        self.retryAfter = retryAfter
        let json = try? JSONValue(parsing: Array(body.readableBytesView))
        name = json?["name"]?.stringValue
        if let error = json?["error"], case .object = error {
            let details = error["details"]?.arrayValue ?? []
            errorCode = details.lazy.compactMap { $0["errorCode"]?.stringValue }.first ?? error["status"]?.stringValue
            errorMessage = error["message"]?.stringValue
        }
    }

    func outcome(now: Date) -> PushOutcome {
        let reason = [errorCode, errorMessage].compactMap { $0 }.joined(separator: ": ")
        let described = reason.isEmpty ? "HTTP \(status)" : reason
        if status == 200 { return .delivered(serviceID: name) }
        if errorCode == "UNREGISTERED" { return .tokenInvalid(reason: described, invalidSince: nil) }
        switch status {
        case 401:
            // The access token expired or was revoked; the sender dropped it.
            return .retry(reason: described, retryAfter: nil)
        case 429, 500, 503:
            return .retry(reason: described, retryAfter: PushOutcome.retryAfter(retryAfter, now: now))
        case 500...599:
            return .retry(reason: described, retryAfter: nil)
        default:
            return .refused(reason: described)
        }
    }
}
