import Crypto
import Foundation
import GeofenceServer
import NIOConcurrencyHelpers
import NIOHTTP1

/// A stand-in for APNs as strict as Apple's documentation: HTTP/2 over TLS only, token
/// authentication checked (signature, key id, team, age, update rate), the request's headers and
/// payload checked, and each refusal answered with Apple's status and `reason`. It records what it
/// accepts and can be told to answer a token with `410 Unregistered` or the next requests with
/// any status (429 or 503 with `Retry-After`, …).
///
/// The pages cited: [Sending] "Sending notification requests to APNs"; [Token] "Establishing a
/// token-based connection to APNs"; [Responses] "Handling notification responses from APNs"
/// (developer.apple.com/documentation/usernotifications/…).
package final class APNsStandIn: Sendable {
    /// One notification the stand-in accepted.
    package struct Accepted: Sendable {
        package var deviceToken: String
        package var topic: String
        package var pushType: String
        package var priority: String?
        package var apnsID: String
        package var collapseID: String?
        package var expiration: String?
        package var providerToken: String
        package var payload: Data
        /// The sender's connection (``StandInRequest/connection``).
        package var connection: String = ""

        package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any] ?? [:] }
        package var aps: [String: Any] { json["aps"] as? [String: Any] ?? [:] }
    }

    /// An answer the stand-in gives instead of accepting.
    package struct Scripted: Sendable {
        package var status: HTTPResponseStatus
        package var reason: String
        package var retryAfter: String?

        package init(status: HTTPResponseStatus, reason: String, retryAfter: String?) {
            self.status = status
            self.reason = reason
            self.retryAfter = retryAfter
        }
    }

    struct State {
        var accepted: [Accepted] = []
        var refusals: [String] = []
        /// Device tokens APNs calls unregistered, with the time it last knew them valid.
        var unregistered: [String: Date] = [:]
        var scripted: [Scripted] = []
        /// Requests still to be answered with a head and then nothing.
        var stalls = 0
        /// The newest provider token seen and its `iat`, for the update-rate rule.
        var newestProviderToken: (token: String, issuedAt: Int64)?
        /// Provider tokens whose signature and fields were verified, with their `iat`.
        var verifiedTokens: [String: Int64] = [:]
    }

    /// The most verified provider tokens remembered; past it the memory starts over.
    static let verifiedTokenLimit = 16

    package let keyID: String
    package let teamID: String
    package let topics: Set<String>
    private let publicKey: P256.Signing.PublicKey
    private let clock: @Sendable () -> Date
    private let state = NIOLockedValueBox(State())
    private let server: NIOLockedValueBox<HTTP2StandInServer?> = NIOLockedValueBox(nil)

    private init(
        keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, topics: Set<String>,
        clock: @escaping @Sendable () -> Date
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.topics = topics
        self.clock = clock
    }

    /// Starts a stand-in that trusts `publicKey` as the key `keyID` of team `teamID`.
    package static func start(
        keyID: String, teamID: String, publicKey: P256.Signing.PublicKey, topics: Set<String>,
        certificate: (certificate: String, key: String), clock: @escaping @Sendable () -> Date
    ) async throws -> APNsStandIn {
        let standIn = APNsStandIn(keyID: keyID, teamID: teamID, publicKey: publicKey, topics: topics, clock: clock)
        // [Sending]: "APNs requires the use of HTTP/2 and TLS 1.2 or later".
        let server = try await HTTP2StandInServer(
            certificatePath: certificate.certificate, keyPath: certificate.key, allowsHTTP1: false
        ) { [standIn] in standIn.respond(to: $0) }
        standIn.server.withLockedValue { $0 = server }
        return standIn
    }

    package var baseURL: String { server.withLockedValue { $0?.baseURL ?? "" } }
    package var refusedHTTP1Connections: Int { server.withLockedValue { $0?.refusedHTTP1Connections ?? 0 } }
    package var accepted: [Accepted] { state.withLockedValue { $0.accepted } }
    package var acceptedCount: Int { state.withLockedValue { $0.accepted.count } }
    package var refusals: [String] { state.withLockedValue { $0.refusals } }

    /// From now on, `token` is answered `410 Unregistered` with `since` as its timestamp.
    package func unregister(_ token: String, since: Date) { state.withLockedValue { $0.unregistered[token] = since } }
    /// The next `count` requests that pass every check are accepted, answered with a head and
    /// then nothing, as a server that stalls mid-answer.
    package func stall(_ count: Int) { state.withLockedValue { $0.stalls += count } }
    /// The next requests that pass every check get these answers instead, in order.
    package func script(_ answers: Scripted...) { state.withLockedValue { $0.scripted += answers } }

    package func shutdown() async throws {
        try await server.withLockedValue { $0 }?.shutdown()
    }

    // MARK: - The rules

    private func respond(to request: StandInRequest) -> StandInResponse {
        let apnsID = request.headers.first(name: "apns-id")
        switch check(request) {
        case .failure(let refusal):
            state.withLockedValue { $0.refusals.append(refusal.reason) }
            return refusal.response(apnsID: apnsID)
        case .success(let accepted):
            return state.withLockedValue { state in
                // [Responses]: 410 Unregistered carries "timestamp", milliseconds since 1970.
                if let since = state.unregistered[accepted.deviceToken] {
                    let milliseconds = Int64(since.timeIntervalSince1970 * 1000)
                    return Refusal(.gone, "Unregistered", timestamp: milliseconds).response(apnsID: accepted.apnsID)
                }
                if !state.scripted.isEmpty {
                    let answer = state.scripted.removeFirst()
                    var headers: [(String, String)] = []
                    if let retryAfter = answer.retryAfter { headers.append(("retry-after", retryAfter)) }
                    return Refusal(answer.status, answer.reason, headers: headers).response(apnsID: accepted.apnsID)
                }
                state.accepted.append(accepted)
                if state.stalls > 0 {
                    state.stalls -= 1
                    return StandInResponse(status: .ok, headers: [("apns-id", accepted.apnsID)], stallsAfterHead: true)
                }
                // [Responses]: success is 200 with an empty body and the apns-id.
                return StandInResponse(status: .ok, headers: [("apns-id", accepted.apnsID)])
            }
        }
    }

    private func check(_ request: StandInRequest) -> Result<Accepted, Refusal> {
        // [Sending]: POST to /3/device/<device token>. [Responses]: 405 for another method,
        // 404 BadPath for another path.
        guard request.method == .POST else { return .failure(Refusal(.methodNotAllowed, "MethodNotAllowed")) }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { return .failure(Refusal(.notFound, "BadPath")) }
        let deviceToken = String(request.path.dropFirst(prefix.count))
        let headers = request.headers

        let providerToken: String
        switch checkProviderToken(headers.first(name: "authorization")) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let token): providerToken = token
        }

        // [Sending]: apns-topic is required with token authentication (MissingTopic); a topic
        // the team's key may not push to is TopicDisallowed [Responses].
        guard let topic = headers.first(name: "apns-topic") else {
            return .failure(Refusal(.badRequest, "MissingTopic"))
        }
        guard topics.contains(topic) else { return .failure(Refusal(.badRequest, "TopicDisallowed")) }

        // [Sending]: apns-push-type "must accurately reflect the contents of your notification's
        // payload"; Apple requires it on watchOS and recommends it elsewhere. The stand-in requires
        // it always (InvalidPushType), since APNs may delay or drop a notification without it.
        let pushTypes: Set = [
            "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
            "pushtotalk",
        ]
        guard let pushType = headers.first(name: "apns-push-type"), pushTypes.contains(pushType) else {
            return .failure(Refusal(.badRequest, "InvalidPushType"))
        }

        // [Sending]: apns-priority is 10, 5 or 1, default 10; background notifications "Always
        // use priority 5. Using priority 10 is an error." (BadPriority).
        let priority = headers.first(name: "apns-priority")
        if let priority, !["10", "5", "1"].contains(priority) { return .failure(Refusal(.badRequest, "BadPriority")) }
        if pushType == "background", priority != "5" { return .failure(Refusal(.badRequest, "BadPriority")) }

        // [Sending]: apns-id is a canonical UUID (8-4-4-4-12); else BadMessageId. Without one,
        // APNs makes one and answers it.
        let apnsID = headers.first(name: "apns-id") ?? UUID().uuidString.lowercased()
        guard UUID(uuidString: apnsID) != nil, apnsID.count == 36 else {
            return .failure(Refusal(.badRequest, "BadMessageId"))
        }
        // [Sending]: apns-collapse-id "can't exceed 64 bytes" (BadCollapseId).
        let collapseID = headers.first(name: "apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return .failure(Refusal(.badRequest, "BadCollapseId")) }
        // [Sending]: apns-expiration is a UNIX epoch in seconds (BadExpirationDate).
        let expiration = headers.first(name: "apns-expiration")
        if let expiration, Int64(expiration) == nil { return .failure(Refusal(.badRequest, "BadExpirationDate")) }

        // [Responses]: BadDeviceToken. Tokens are hexadecimal; today's are 32 bytes.
        guard deviceToken.count == 64, deviceToken.allSatisfy(\.isHexDigit) else {
            return .failure(Refusal(.badRequest, "BadDeviceToken"))
        }

        // [Sending]: "The maximum payload size is 4 KB (4096 bytes)"; [Responses]: 413
        // PayloadTooLarge, 400 PayloadEmpty.
        guard !request.body.isEmpty else { return .failure(Refusal(.badRequest, "PayloadEmpty")) }
        guard request.body.count <= 4096 else { return .failure(Refusal(.payloadTooLarge, "PayloadTooLarge")) }

        return .success(
            Accepted(
                deviceToken: deviceToken, topic: topic, pushType: pushType, priority: priority, apnsID: apnsID,
                collapseID: collapseID, expiration: expiration, providerToken: providerToken, payload: request.body,
                connection: request.connection))
    }

    /// [Token]: `authorization: bearer <JWT>`, the JWT's header `alg` ES256 and `kid` the key
    /// id, its claims `iss` the team id and `iat` the time it was made; signed with the key.
    /// [Responses]: 403 MissingProviderToken, InvalidProviderToken, ExpiredProviderToken (older
    /// than an hour), 429 TooManyProviderTokenUpdates ([Token]: "Refresh your token no more
    /// than once every 20 minutes").
    private func checkProviderToken(_ authorization: String?) -> Result<String, Refusal> {
        guard let authorization else { return .failure(Refusal(.forbidden, "MissingProviderToken")) }
        let scheme = "bearer "
        guard authorization.lowercased().hasPrefix(scheme) else {
            return .failure(Refusal(.forbidden, "InvalidProviderToken"))
        }
        let token = String(authorization.dropFirst(scheme.count))
        guard let issuedAt = verifiedIssueTime(of: token) else {
            return .failure(Refusal(.forbidden, "InvalidProviderToken"))
        }
        let now = Int64(clock().timeIntervalSince1970)
        guard now - issuedAt <= 3600 else { return .failure(Refusal(.forbidden, "ExpiredProviderToken")) }
        return state.withLockedValue { state in
            if let newest = state.newestProviderToken, newest.token != token, issuedAt > newest.issuedAt {
                guard issuedAt - newest.issuedAt >= 20 * 60 else {
                    return .failure(Refusal(.tooManyRequests, "TooManyProviderTokenUpdates"))
                }
                state.newestProviderToken = (token, issuedAt)
            } else if state.newestProviderToken == nil {
                state.newestProviderToken = (token, issuedAt)
            }
            return .success(token)
        }
    }
}

extension APNsStandIn {
    /// The `iat` of a provider token whose header, claims and signature are right; `nil` for
    /// any other. A token is verified the first time its text is seen: the same text carries
    /// the same claims and signature, so it would verify the same again. Its age is checked on
    /// every request, by the caller. The benchmark's stand-in shares the server's cores, which
    /// Apple's servers do not: a signature check per push was half of its CPU there.
    fileprivate func verifiedIssueTime(of token: String) -> Int64? {
        if let known = state.withLockedValue({ $0.verifiedTokens[token] }) { return known }
        guard let jwt = JWT.Parts(token), jwt.header["alg"] as? String == "ES256",
            jwt.header["kid"] as? String == keyID, jwt.claims["iss"] as? String == teamID,
            let issuedAt = (jwt.claims["iat"] as? NSNumber)?.int64Value,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature),
            publicKey.isValidSignature(signature, for: Data(jwt.signingInput.utf8))
        else { return nil }
        state.withLockedValue { state in
            if state.verifiedTokens.count >= Self.verifiedTokenLimit { state.verifiedTokens.removeAll() }
            state.verifiedTokens[token] = issuedAt
        }
        return issuedAt
    }
}

/// A refusal as APNs writes it: the status, `{"reason": …}` (and `timestamp` for 410), and the
/// request's `apns-id`.
struct Refusal: Error {
    var status: HTTPResponseStatus
    var reason: String
    var timestamp: Int64?
    var headers: [(String, String)] = []

    init(_ status: HTTPResponseStatus, _ reason: String, timestamp: Int64? = nil, headers: [(String, String)] = []) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.headers = headers
    }

    func response(apnsID: String?) -> StandInResponse {
        var body: [String: Any] = ["reason": reason]
        if let timestamp { body["timestamp"] = timestamp }
        return .json(status, body, headers: headers + [("apns-id", apnsID ?? UUID().uuidString.lowercased())])
    }
}
