import AsyncHTTPClient
import Foundation
import NIOCore

/// Sends notifications through Firebase Cloud Messaging's HTTP v1 API
/// (`POST /v1/projects/<project>/messages:send`), authenticated by a service account's OAuth 2
/// access token.
///
///     let account = try FCMServiceAccount(json: Data(contentsOf: keyFile))
///     let fcm = FCMSender(serviceAccount: account, client: .shared)
///     let outcome = await fcm.send(message)
///
/// One request per message, no retries of its own: the outcome says what the caller should do.
public struct FCMSender: PushSender {
    public static let googleEndpoint = "https://fcm.googleapis.com"

    private let client: HTTPClient
    private let endpoint: String
    private let timeout: Duration
    private let clock: @Sendable () -> Date
    private let accessToken: FCMAccessToken

    /// - Parameters:
    ///   - endpoint: FCM's base URL; tests point it (and the account's `token_uri`) at a stand-in.
    ///   - clock: the wall clock for the access token's life and the messages' `ttl`.
    public init(
        serviceAccount: FCMServiceAccount, client: HTTPClient, endpoint: String = FCMSender.googleEndpoint,
        timeout: Duration = .seconds(30), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.endpoint = endpoint
        self.timeout = timeout
        self.clock = clock
        self.accessToken = FCMAccessToken(account: serviceAccount, client: client, timeout: timeout, clock: clock)
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        guard case .fcm(let projectID) = message.destination.service else {
            return .refused(reason: "not an FCM destination")
        }
        guard FCMRegistrationToken.isWellFormed(message.destination.token) else {
            return .tokenInvalid(reason: "INVALID_ARGUMENT: malformed registration token", invalidSince: nil)
        }
        guard FCMRegistrationToken.isWellFormedProjectID(projectID) else {
            return .refused(reason: "the Firebase project id \"\(projectID)\" is malformed")
        }
        let body: Data
        do {
            body = try FCMMessage.encode(message, now: clock())
        } catch {
            return .refused(reason: error.description)
        }
        let token: String
        do {
            token = try await accessToken.token()
        } catch {
            return .retry(reason: "FCM access token: \(error)", retryAfter: nil)
        }
        do {
            let request = try HTTPClient.Request(
                url: endpoint + "/v1/projects/\(projectID)/messages:send", method: .POST,
                headers: ["authorization": "Bearer \(token)", "content-type": "application/json"],
                body: .byteBuffer(ByteBuffer(data: body)))
            let exchange = try await PushExchange.run(
                request, on: client, timeout: timeout, maximumBodyBytes: 64 * 1024)
            let answer = FCMAnswer(
                status: exchange.status, retryAfter: exchange.headers.first(name: "retry-after"), body: exchange.body)
            if answer.status == 401 { await accessToken.discard(token) }
            return answer.outcome(now: clock())
        } catch {
            return .retry(reason: "FCM unreachable: \(error)", retryAfter: nil)
        }
    }
}

/// What FCM registration tokens and project ids may hold. Tokens are opaque, but they become
/// part of a JSON body and project ids part of the URL's path: letters, digits and `-_:.`.
public enum FCMRegistrationToken {
    public static func isWellFormed(_ token: String) -> Bool {
        let utf8 = token.utf8
        return !utf8.isEmpty && utf8.count <= 4096 && utf8.allSatisfy(isTokenByte)
    }

    static func isWellFormedProjectID(_ id: String) -> Bool {
        let utf8 = id.utf8
        return !utf8.isEmpty && utf8.count <= 100 && utf8.allSatisfy { isTokenByte($0) && $0 != 0x3A }
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x3A, 0x2E: true
        default: false
        }
    }
}
