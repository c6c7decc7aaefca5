import Foundation
import HTTPTypes

/// What an API key may do, chosen when it is made (`geofence serve create-key --scope`).
///
/// - `admin`: everything (the keys made before scopes existed are admin keys);
/// - `read`: reads only (`GET`): a dashboard viewer;
/// - `ingest`: reports fixes only (`POST /v1/devices/{id}/locations` and the app routes), for
///   the devices it is bound to, if bound: a tracking app's key, so a lost phone exposes no
///   track, region or webhook;
/// - `device`: what a phone that follows the server's plans needs, for the devices it is
///   bound to (one id or a prefix, always bound): report fixes, read the plan and the settings
///   (`GET /v1/devices/{id}/plan`, `GET /v1/devices/{id}/settings`), and manage its
///   notifications: the push tokens (every method under `/v1/devices/{id}/push-tokens`), the
///   notification settings (`/v1/devices/{id}/notification-settings`: opt-out, quiet hours) and
///   the delivery log (`GET /v1/devices/{id}/notifications`).
///
/// ``check(_:path:)`` is the one check of a request — its operation, and the device its path
/// names — made by both key middlewares; ``permits(device:)`` the check of a reported device
/// named in the body (the apps' messages), made where the message is read.
public enum KeyScope: Sendable, Hashable, CustomStringConvertible {
    case admin
    case read
    /// Reports only; for `devices` when given.
    case ingest(devices: DeviceBinding?)
    /// A phone's own operations, for `devices` only.
    case device(devices: DeviceBinding)

    /// The device ids a key may act for.
    public enum DeviceBinding: Sendable, Hashable {
        /// Exactly this id.
        case device(String)
        /// Every id that starts with this text, compared as Unicode scalars, both in NFC
        /// (``GeofenceServer/createAPIKey(tenant:scope:)`` normalizes the binding): `e` covers
        /// `e1` but not `é1`, however a request spells it.
        case prefix(String)

        /// Whether `device` (decoded, in NFC) is covered.
        func covers(_ device: String) -> Bool {
            switch self {
            case .device(let id): device.unicodeScalars.elementsEqual(id.unicodeScalars)
            case .prefix(let prefix): device.unicodeScalars.starts(with: prefix.unicodeScalars)
            }
        }

        /// `device:ID` or `prefix:PREFIX`, the tail of a bound scope's stored form.
        var stored: String {
            switch self {
            case .device(let id): "device:\(id)"
            case .prefix(let prefix): "prefix:\(prefix)"
            }
        }

        init?(stored: Substring) {
            if stored.hasPrefix("device:") {
                self = .device(String(stored.dropFirst("device:".count)))
            } else if stored.hasPrefix("prefix:") {
                self = .prefix(String(stored.dropFirst("prefix:".count)))
            } else {
                return nil
            }
        }
    }

    /// The stored form: `admin`, `read`, `ingest`, `ingest:device:ID`, `ingest:prefix:PREFIX`,
    /// `device:device:ID`, `device:prefix:PREFIX`.
    public var description: String {
        switch self {
        case .admin: "admin"
        case .read: "read"
        case .ingest(devices: nil): "ingest"
        case .ingest(devices: let binding?): "ingest:\(binding.stored)"
        case .device(let binding): "device:\(binding.stored)"
        }
    }

    /// Reads the stored form; `nil` for anything else.
    public init?(stored: String) {
        switch stored {
        case "admin": self = .admin
        case "read": self = .read
        case "ingest": self = .ingest(devices: nil)
        default:
            if stored.hasPrefix("ingest:"), let binding = DeviceBinding(stored: stored.dropFirst("ingest:".count)) {
                self = .ingest(devices: binding)
            } else if stored.hasPrefix("device:"),
                let binding = DeviceBinding(stored: stored.dropFirst("device:".count))
            {
                self = .device(devices: binding)
            } else {
                return nil
            }
        }
    }

    /// The devices the key is bound to; `nil` for a key that may name any device.
    var binding: DeviceBinding? {
        switch self {
        case .admin, .read: nil
        case .ingest(let devices): devices
        case .device(let devices): devices
        }
    }

    /// Checks a request: 403 when the key may not call `method` on `path` (the request's path,
    /// no query), or when `path` names a device (`/v1/devices/{id}/…`) the key is not bound to.
    /// The id is percent-decoded and normalized as the route reads it (``Identifier``), so no
    /// spelling of another device's id gets through; one that cannot be decoded is the route's
    /// 400.
    func check(_ method: HTTPRequest.Method, path: String) throws(Problem) {
        guard permits(method, path: path) else { throw forbidden("\(method) \(path)") }
        guard let binding, let raw = Self.pathDevice(path) else { return }
        let device = try Identifier.fromURL(raw, field: "id")
        guard binding.covers(device) else { throw forbidden("device \"\(device.prefix(64))\"") }
    }

    /// Whether the key may call `method` on `path` (the request's path, no query).
    func permits(_ method: HTTPRequest.Method, path: String) -> Bool {
        switch self {
        case .admin: true
        case .read: (method == .get || method == .head) && !Self.reports(method, path: path)
        case .ingest: Self.reports(method, path: path)
        case .device:
            Self.reports(method, path: path) || Self.readsDeviceSetup(method, path: path)
                || Self.managesOwnNotifications(method, path: path)
        }
    }

    /// Whether `method` on `path` reports fixes: `POST /v1/devices/{id}/locations`,
    /// `GET|POST /v1/ingest/osmand`, `POST /v1/ingest/owntracks`.
    static func reports(_ method: HTTPRequest.Method, path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.first == "v1" else { return false }
        switch (method, segments.count) {
        case (.post, 4): return segments[1] == "devices" && segments[3] == "locations"
        case (.get, 3): return segments[1] == "ingest" && segments[2] == "osmand"
        case (.post, 3): return segments[1] == "ingest" && (segments[2] == "osmand" || segments[2] == "owntracks")
        default: return false
        }
    }

    /// Whether `method` on `path` reads what a phone follows: `GET /v1/devices/{id}/plan` and
    /// `GET /v1/devices/{id}/settings`.
    static func readsDeviceSetup(_ method: HTTPRequest.Method, path: String) -> Bool {
        guard method == .get || method == .head else { return false }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return segments.count == 4 && segments[0] == "v1" && segments[1] == "devices"
            && (segments[3] == "plan" || segments[3] == "settings")
    }

    /// Whether `method` on `path` manages the device's own notifications: its push tokens
    /// (`/v1/devices/{id}/push-tokens[/…]`, any method: a phone registers, replaces and removes
    /// them), its notification settings (`/v1/devices/{id}/notification-settings`, read and
    /// set) and its delivery log (`GET /v1/devices/{id}/notifications`).
    static func managesOwnNotifications(_ method: HTTPRequest.Method, path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "devices" else { return false }
        if segments[3] == "push-tokens" { return true }
        guard segments.count == 4 else { return false }
        switch segments[3] {
        case "notification-settings": return true
        case "notifications": return method == .get || method == .head
        default: return false
        }
    }

    /// The raw (still percent-encoded) `{id}` of a `/v1/devices/{id}/…` path, if it is one.
    static func pathDevice(_ path: String) -> Substring? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "devices" else { return nil }
        return segments[2]
    }

    /// Whether the key may act for `device` (decoded, in NFC): named in a message's body
    /// (the apps' routes), where ``check(_:path:)`` cannot see it.
    func permits(device: String) -> Bool {
        switch self {
        case .admin, .ingest(devices: nil): true
        case .read: false
        case .ingest(devices: let binding?), .device(devices: let binding): binding.covers(device)
        }
    }

    /// The 403 answer to an operation or device the key may not touch.
    func forbidden(_ what: String) -> Problem {
        Problem(status: .forbidden, detail: "this key's scope (\(self)) does not allow \(what)")
    }
}

/// A key's tenant and scope.
public struct KeyGrant: Sendable, Hashable {
    public var tenant: String
    public var scope: KeyScope

    public init(tenant: String, scope: KeyScope) {
        self.tenant = tenant
        self.scope = scope
    }
}
