import Foundation
import HTTPTypes

/// What an API key may do, chosen when it is made (`geofence serve create-key --scope`).
///
/// - `admin`: everything (the keys made before scopes existed are admin keys);
/// - `read`: reads only (`GET`): a dashboard viewer;
/// - `ingest`: reports fixes only (`POST /v1/devices/{id}/locations` and the app routes), for
///   the devices it is bound to, if bound: the key a phone holds, so a lost phone exposes no
///   track, region or webhook; it also manages those devices' push tokens, notification
///   settings and log (``managesDeviceNotifications(path:)``).
///
/// ``permits(_:path:)`` is the one check of a request's operation, made by both key
/// middlewares; ``permits(device:)`` the check of a reported device, made where the device is
/// known (the path, or the app's message).
public enum KeyScope: Sendable, Hashable, CustomStringConvertible {
    case admin
    case read
    /// Reports only; for `devices` when given.
    case ingest(devices: DeviceBinding?)

    /// The device ids an ingest key may report for.
    public enum DeviceBinding: Sendable, Hashable {
        /// Exactly this id.
        case device(String)
        /// Every id that starts with this text, compared as Unicode scalars, both in NFC
        /// (``GeofenceServer/createAPIKey(tenant:scope:)`` normalizes the binding): `e` covers
        /// `e1` but not `é1`, however a request spells it.
        case prefix(String)
    }

    /// The stored form: `admin`, `read`, `ingest`, `ingest:device:ID`, `ingest:prefix:PREFIX`.
    public var description: String {
        switch self {
        case .admin: "admin"
        case .read: "read"
        case .ingest(devices: nil): "ingest"
        case .ingest(devices: .device(let id)?): "ingest:device:\(id)"
        case .ingest(devices: .prefix(let prefix)?): "ingest:prefix:\(prefix)"
        }
    }

    /// Reads the stored form; `nil` for anything else.
    public init?(stored: String) {
        switch stored {
        case "admin": self = .admin
        case "read": self = .read
        case "ingest": self = .ingest(devices: nil)
        default:
            if stored.hasPrefix("ingest:device:") {
                self = .ingest(devices: .device(String(stored.dropFirst("ingest:device:".count))))
            } else if stored.hasPrefix("ingest:prefix:") {
                self = .ingest(devices: .prefix(String(stored.dropFirst("ingest:prefix:".count))))
            } else {
                return nil
            }
        }
    }

    /// Whether the key may call `method` on `path` (the request's path, no query).
    func permits(_ method: HTTPRequest.Method, path: String) -> Bool {
        switch self {
        case .admin: true
        case .read: (method == .get || method == .head) && !Self.reports(method, path: path)
        case .ingest: Self.reports(method, path: path) || Self.managesDeviceNotifications(path: path)
        }
    }

    /// Whether `path` is one of a device's own notification routes (its push tokens, settings
    /// and log): a phone's key manages them for its own device (``permits(device:)``, checked by
    /// the route).
    static func managesDeviceNotifications(path: String) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count >= 4, segments[0] == "v1", segments[1] == "devices" else { return false }
        switch (segments.count, segments[3]) {
        case (4, "push-tokens"), (5, "push-tokens"), (4, "notification-settings"), (4, "notifications"): return true
        default: return false
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

    /// Whether the key may report fixes for `device`.
    func permits(device: String) -> Bool {
        switch self {
        case .admin, .ingest(devices: nil): true
        case .read: false
        case .ingest(devices: .device(let id)?): device.unicodeScalars.elementsEqual(id.unicodeScalars)
        case .ingest(devices: .prefix(let prefix)?): device.unicodeScalars.starts(with: prefix.unicodeScalars)
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
