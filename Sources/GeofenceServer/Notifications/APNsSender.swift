import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends notifications through the Apple Push Notification service: HTTP/2 (AsyncHTTPClient
/// negotiates it by ALPN and multiplexes the requests on one connection per environment) with
/// token authentication.
///
///     let credentials = try APNsCredentials(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", p8: pem)
///     let apns = APNsSender(credentials: credentials, client: .shared)
///     let outcome = await apns.send(message)  // .delivered, .tokenInvalid, .retry or .refused
///
/// One request per message, no retries of its own: the outcome says what the caller should do.
public struct APNsSender: PushSender {
    /// Where each APNs environment is; tests point both at a stand-in.
    public struct Endpoints: Sendable, Hashable {
        public var production: String
        public var sandbox: String

        public init(production: String, sandbox: String) {
            self.production = production
            self.sandbox = sandbox
        }

        public static let apple = Endpoints(
            production: "https://api.push.apple.com", sandbox: "https://api.sandbox.push.apple.com")

        func base(for environment: PushDestination.APNsEnvironment) -> String {
            environment == .production ? production : sandbox
        }
    }

    /// Apple's answers are a few hundred bytes; a larger body is not APNs.
    static let maximumAnswerBytes = 64 * 1024

    private let client: HTTPClient
    private let endpoints: Endpoints
    private let timeout: Duration
    private let clock: @Sendable () -> Date
    private let providerToken: APNsProviderToken

    /// - Parameters:
    ///   - client: an HTTP client left in its default `.automatic` HTTP version, so that it
    ///     speaks HTTP/2 (APNs takes nothing else).
    ///   - timeout: for one request, connection and the whole answer included.
    ///   - clock: the wall clock the provider token's age and `apns-expiration` are read from.
    ///   - sharedTokens: where the servers on one store share their provider token (the
    ///     server's store); `nil`: this sender signs its own.
    public init(
        credentials: APNsCredentials, client: HTTPClient, endpoints: Endpoints = .apple,
        timeout: Duration = .seconds(30), clock: @escaping @Sendable () -> Date = { Date() },
        sharedTokens: (any ProviderTokenStore)? = nil
    ) {
        self.client = client
        self.endpoints = endpoints
        self.timeout = timeout
        self.clock = clock
        self.providerToken = APNsProviderToken(credentials: credentials, clock: clock, shared: sharedTokens)
    }

    public func send(_ message: PushMessage) async -> PushOutcome {
        guard case .apns(let topic, let environment) = message.destination.service else {
            return .refused(reason: "not an APNs destination")
        }
        // Checked here as well as at registration: the token becomes part of the URL's path.
        guard APNsDeviceToken.isWellFormed(message.destination.token) else {
            return .tokenInvalid(reason: "BadDeviceToken", invalidSince: nil)
        }
        if let collapseID = message.collapseID, collapseID.utf8.count > APNsPayload.maximumCollapseIDBytes {
            return .refused(
                reason: "BadCollapseId: the collapse id is over \(APNsPayload.maximumCollapseIDBytes) bytes")
        }
        let payload: Data
        do {
            payload = try APNsPayload.encode(message)
        } catch {
            return .refused(reason: error.description)
        }
        let jwt: String
        do {
            jwt = try await providerToken.token()
        } catch {
            return .refused(reason: "the provider token could not be signed: \(error)")
        }
        let url = endpoints.base(for: environment) + "/3/device/" + message.destination.token
        do {
            let request = try HTTPClient.Request(
                url: url, method: .POST, headers: APNsRequestHeaders.make(for: message, topic: topic, jwt: jwt),
                body: .byteBuffer(ByteBuffer(data: payload)))
            let exchange = try await PushExchange.run(
                request, on: client, timeout: timeout, maximumBodyBytes: Self.maximumAnswerBytes)
            let answer = APNsAnswer(status: exchange.status, headers: exchange.headers, body: exchange.body)
            if answer.reason == "ExpiredProviderToken" { await providerToken.discard(jwt) }
            return answer.outcome(now: clock())
        } catch {
            return .retry(reason: "APNs unreachable: \(error)", retryAfter: nil)
        }
    }
}

/// APNs device tokens: hexadecimal text, as `registerForRemoteNotifications` gives the bytes
/// (32 today; Apple says not to count on the length, so up to 100 bytes are taken).
public enum APNsDeviceToken {
    public static func isWellFormed(_ token: String) -> Bool {
        let utf8 = token.utf8
        return !utf8.isEmpty && utf8.count <= 200 && utf8.count.isMultiple(of: 2)
            && utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46)
            }
    }
}

extension Duration {
    /// The whole span in nanoseconds, for NIO's `TimeAmount` (saturating past ~292 years).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
