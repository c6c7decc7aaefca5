import CryptoExtras
import Foundation
import NIOConcurrencyHelpers
import NIOHTTP1
import PushStandIns

@testable import GeofenceServer

/// A stand-in for Firebase Cloud Messaging's HTTP v1 API and Google's OAuth 2 token endpoint,
/// as strict as their documentation, on one TLS server that speaks HTTP/2 (and HTTP/1.1, as
/// Google's servers do). It records the messages it accepts and can be told to answer the next
/// ones with any status (429 or 503 with `Retry-After`, …).
///
/// The pages cited: [OAuth] "Using OAuth 2.0 for Server to Server Applications"
/// (developers.google.com/identity/protocols/oauth2/service-account); [Send] FCM HTTP v1 API
/// reference, `projects.messages.send` and the `Message` resource
/// (firebase.google.com/docs/reference/fcm/rest/v1/projects.messages); [Errors] its `ErrorCode`
/// page.
final class FCMStandIn: Sendable {
    struct Accepted: Sendable {
        var token: String
        var body: Data
        var accessToken: String

        var message: [String: Any] {
            ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["message"] as? [String: Any] ?? [:]
        }
    }

    struct Scripted: Sendable {
        var status: HTTPResponseStatus
        var rpcStatus: String
        var errorCode: String?
        var retryAfter: String?
    }

    struct State {
        var accepted: [Accepted] = []
        var refusals: [String] = []
        var scripted: [Scripted] = []
        /// Access tokens issued, with their expiry.
        var accessTokens: [String: Date] = [:]
        var tokenExchanges = 0
        /// Registration tokens of installed apps; any other well-formed token is UNREGISTERED.
        var registered: Set<String> = []
    }

    static let accessTokenLifetime: TimeInterval = 3599

    let projectID: String
    let clientEmail: String
    private let publicKey: _RSA.Signing.PublicKey
    private let clock: @Sendable () -> Date
    private let state = NIOLockedValueBox(State())
    private let server: NIOLockedValueBox<HTTP2StandInServer?> = NIOLockedValueBox(nil)

    private init(
        projectID: String, clientEmail: String, publicKey: _RSA.Signing.PublicKey, clock: @escaping @Sendable () -> Date
    ) {
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.publicKey = publicKey
        self.clock = clock
    }

    static func start(
        projectID: String, clientEmail: String, publicKey: _RSA.Signing.PublicKey,
        certificate: (certificate: String, key: String), clock: @escaping @Sendable () -> Date
    ) async throws -> FCMStandIn {
        let standIn = FCMStandIn(projectID: projectID, clientEmail: clientEmail, publicKey: publicKey, clock: clock)
        let server = try await HTTP2StandInServer(
            certificatePath: certificate.certificate, keyPath: certificate.key, allowsHTTP1: true
        ) { [standIn] in standIn.respond(to: $0) }
        standIn.server.withLockedValue { $0 = server }
        return standIn
    }

    var baseURL: String { server.withLockedValue { $0?.baseURL ?? "" } }
    var tokenURI: String { baseURL + "/token" }
    var accepted: [Accepted] { state.withLockedValue { $0.accepted } }
    var refusals: [String] { state.withLockedValue { $0.refusals } }
    var tokenExchanges: Int { state.withLockedValue { $0.tokenExchanges } }

    func register(_ token: String) { state.withLockedValue { _ = $0.registered.insert(token) } }
    func script(_ answers: Scripted...) { state.withLockedValue { $0.scripted += answers } }

    func shutdown() async throws {
        try await server.withLockedValue { $0 }?.shutdown()
    }

    private func respond(to request: StandInRequest) -> StandInResponse {
        let response = request.path == "/token" ? exchange(request) : send(request)
        if response.status != .ok {
            let text = String(decoding: response.body, as: UTF8.self)
            state.withLockedValue { $0.refusals.append(text) }
        }
        return response
    }

    // MARK: - The token endpoint

    /// [OAuth]: a POST of `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`
    /// (form-encoded); the JWT signed RS256 with the service account's key, `iss` its email,
    /// `scope` the scopes asked, `aud` the token URI, `iat` and `exp` at most an hour apart.
    /// Errors are 400 with `{"error", "error_description"}`.
    private func exchange(_ request: StandInRequest) -> StandInResponse {
        func error(_ code: String, _ description: String) -> StandInResponse {
            .json(.badRequest, ["error": code, "error_description": description])
        }
        guard request.method == .POST,
            request.headers.first(name: "content-type")?.hasPrefix("application/x-www-form-urlencoded") == true
        else { return error("invalid_request", "Expected a form-encoded POST.") }
        let form = Self.formFields(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return error("unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"], let jwt = JWT.Parts(assertion),
            jwt.header["alg"] as? String == "RS256",
            publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: jwt.signature),
                for: SHA256.hash(data: Data(jwt.signingInput.utf8)), padding: .insecurePKCS1v1_5)
        else { return error("invalid_grant", "Invalid JWT Signature.") }
        guard jwt.claims["iss"] as? String == clientEmail else { return error("invalid_grant", "Invalid issuer.") }
        guard jwt.claims["aud"] as? String == tokenURI else {
            return error("invalid_grant", "Invalid JWT: audience must be the token URI.")
        }
        let scopes = (jwt.claims["scope"] as? String)?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(FCMAccessToken.scope) else { return error("invalid_scope", "Invalid OAuth scope.") }
        let now = clock().timeIntervalSince1970
        guard let issuedAt = (jwt.claims["iat"] as? NSNumber)?.doubleValue,
            let expiresAt = (jwt.claims["exp"] as? NSNumber)?.doubleValue,
            expiresAt - issuedAt <= 3600, issuedAt <= now + 60, expiresAt > now
        else {
            return error(
                "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        let accessToken = "ya29.stand-in-" + UUID().uuidString
        state.withLockedValue {
            $0.accessTokens[accessToken] = clock().addingTimeInterval(Self.accessTokenLifetime)
            $0.tokenExchanges += 1
        }
        return .json(
            .ok, ["access_token": accessToken, "expires_in": Int(Self.accessTokenLifetime), "token_type": "Bearer"])
    }

    private static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    // MARK: - messages:send

    /// [Errors]: every error is `{"error":{"code","message","status","details":[{"@type":
    /// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode"}]}}`.
    private static func error(
        _ status: HTTPResponseStatus, _ rpcStatus: String, _ message: String, errorCode: String? = nil,
        headers: [(String, String)] = []
    ) -> StandInResponse {
        var error: [String: Any] = ["code": Int(status.code), "status": rpcStatus, "message": message]
        if let errorCode {
            error["details"] = [
                ["@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode]
            ]
        }
        return .json(status, ["error": error], headers: headers)
    }

    private func send(_ request: StandInRequest) -> StandInResponse {
        // [Send]: POST https://fcm.googleapis.com/v1/{parent=projects/*}/messages:send.
        guard request.method == .POST, request.path.hasPrefix("/v1/projects/"), request.path.hasSuffix("/messages:send")
        else { return Self.error(.notFound, "NOT_FOUND", "Requested entity was not found.") }
        // [Errors] UNAUTHENTICATED (401): a missing, invalid or expired OAuth token.
        let scheme = "Bearer "
        guard let authorization = request.headers.first(name: "authorization"), authorization.hasPrefix(scheme),
            let expiry = state.withLockedValue({ $0.accessTokens[String(authorization.dropFirst(scheme.count))] }),
            clock() < expiry
        else {
            return Self.error(
                .unauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials.",
                errorCode: "THIRD_PARTY_AUTH_ERROR")
        }
        let accessToken = String(authorization.dropFirst(scheme.count))
        let project = request.path.dropFirst("/v1/projects/".count).dropLast("/messages:send".count)
        // [Errors] SENDER_ID_MISMATCH / PERMISSION_DENIED: the service account's project only.
        guard project == projectID else {
            return Self.error(.forbidden, "PERMISSION_DENIED", "Permission denied.", errorCode: "SENDER_ID_MISMATCH")
        }
        switch checkMessage(request.body) {
        case .failure(let invalid):
            return Self.error(.badRequest, "INVALID_ARGUMENT", invalid.message, errorCode: "INVALID_ARGUMENT")
        case .success(let token):
            return state.withLockedValue { state in
                if !state.scripted.isEmpty {
                    let answer = state.scripted.removeFirst()
                    let headers = answer.retryAfter.map { [("retry-after", $0)] } ?? []
                    return Self.error(
                        answer.status, answer.rpcStatus, "Scripted.", errorCode: answer.errorCode, headers: headers)
                }
                // [Errors] UNREGISTERED (HTTP 404): the app was uninstalled or the token expired.
                guard state.registered.contains(token) else {
                    return Self.error(
                        .notFound, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
                }
                state.accepted.append(Accepted(token: token, body: request.body, accessToken: accessToken))
                // [Send]: the answer is the Message, of which `name` is set.
                return .json(.ok, ["name": "projects/\(projectID)/messages/\(state.accepted.count)"])
            }
        }
    }

    /// [Send]: the body is `{"message": Message, "validate_only"?}`; a Message has exactly one
    /// target (`token`, `topic` or `condition`), `data` maps strings to strings and may not use
    /// reserved keys ("from", "message_type", or any starting "google" or "gcm"), `notification`
    /// has `title`, `body`, `image`; `android.ttl` is a Duration ("3.5s"); unknown fields are
    /// INVALID_ARGUMENT. [Errors] INVALID_ARGUMENT also for a message over 4096 bytes.
    private func checkMessage(_ body: Data) -> Result<String, InvalidArgument> {
        guard let root = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            Set(root.keys).isSubset(of: ["message", "validate_only"]),
            let message = root["message"] as? [String: Any]
        else { return .failure(InvalidArgument("Invalid JSON payload received.")) }
        let known: Set = [
            "name", "data", "notification", "android", "webpush", "apns", "fcm_options", "token", "topic", "condition",
        ]
        if let unknown = message.keys.first(where: { !known.contains($0) }) {
            return .failure(InvalidArgument("Invalid JSON payload received. Unknown name \"\(unknown)\" at 'message'."))
        }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        guard targets == ["token"], let token = message["token"] as? String, !token.isEmpty else {
            return .failure(InvalidArgument("Exactly one of token, topic or condition must be set."))
        }
        guard token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_:".contains($0)) }) else {
            return .failure(InvalidArgument("The registration token is not a valid FCM registration token"))
        }
        var payloadBytes = 0
        if let data = message["data"] {
            guard let data = data as? [String: String] else {
                return .failure(InvalidArgument("Invalid value at 'message.data'."))
            }
            if let reserved = data.keys.first(where: {
                ["from", "message_type"].contains($0) || $0.hasPrefix("google") || $0.hasPrefix("gcm")
            }) {
                return .failure(InvalidArgument("Invalid data payload key: \(reserved)"))
            }
            payloadBytes += (try? JSONSerialization.data(withJSONObject: data).count) ?? 0
        }
        if let notification = message["notification"] {
            guard let notification = notification as? [String: String],
                Set(notification.keys).isSubset(of: ["title", "body", "image"])
            else { return .failure(InvalidArgument("Invalid value at 'message.notification'.")) }
            payloadBytes += (try? JSONSerialization.data(withJSONObject: notification).count) ?? 0
        }
        guard payloadBytes <= 4096 else { return .failure(InvalidArgument("Message is too big")) }
        if let android = message["android"] {
            guard let android = android as? [String: Any] else {
                return .failure(InvalidArgument("Invalid value at 'message.android'."))
            }
            if let ttl = android["ttl"] {
                guard let ttl = ttl as? String, ttl.wholeMatch(of: /[0-9]+(\.[0-9]{1,9})?s/) != nil else {
                    return .failure(
                        InvalidArgument(
                            "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration)"))
                }
            }
            if let priority = android["priority"] {
                guard let priority = priority as? String, ["normal", "high"].contains(priority.lowercased()) else {
                    return .failure(InvalidArgument("Invalid value at 'message.android.priority'"))
                }
            }
        }
        return .success(token)
    }
}

/// Why a message is INVALID_ARGUMENT, as FCM's `error.message` says it.
struct InvalidArgument: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
