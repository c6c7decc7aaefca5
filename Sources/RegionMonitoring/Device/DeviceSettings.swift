import Foundation
import Geofencing

/// The app's permission to use location (Core Location's `CLAuthorizationStatus`).
public enum AuthorizationStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// The user has not been asked yet.
    case notDetermined
    /// Parental controls or a device policy forbid location use; the user cannot change it.
    case restricted
    /// The user refused, or location services are off for the whole device.
    case denied
    /// Location at any time, including region events while the app is not in use.
    case authorizedAlways
    /// Location only while the app is in use: no region events in the background.
    case authorizedWhenInUse

    /// Whether this status lets the app use location at all.
    public var isAuthorized: Bool { self == .authorizedAlways || self == .authorizedWhenInUse }
}

/// What the simulated user answers to the next authorisation prompt.
public enum PromptResponse: String, Sendable, Hashable, Codable {
    case allowAlways, allowWhenInUse, deny
    /// The prompt stays on screen: the status does not change.
    case ignore
}

/// Where the app is in its life (docs/monitoring.md, "App life"). Set it with
/// ``SimulatedDevice/setAppState(_:)`` so the device applies the transition.
public enum AppState: String, Sendable, Hashable, Codable, CaseIterable {
    /// On screen: events are delivered at once.
    case foreground
    /// Running but not on screen (and, in this model, not showing a location indicator):
    /// events are delivered at once.
    case background
    /// In memory but not running: an event wakes it into `background` for a bounded window
    /// (``DeviceSettings/backgroundWakeDuration``), then it suspends again.
    case suspended
    /// Killed by the system: on iOS an event relaunches it into `background` with
    /// ``LaunchReason/location``; on macOS it gets nothing.
    case terminated
    /// Removed by the user (force-quit / uninstalled in this model): nothing is delivered and
    /// its regions and monitors are dropped.
    case removed

    /// Whether the app counts as "in use" for when-in-use authorisation.
    public var isInUse: Bool { self == .foreground }
}

/// The operating system the simulated device runs.
public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
    case iOS
    case macOS
}

/// A phone's settings as the app sees them, as one injectable value.
///
/// ```swift
/// var settings = DeviceSettings()          // hardware present, services on, not asked yet
/// settings.promptResponse = .allowAlways   // what the user will tap
/// settings.appState = .background
/// let device = SimulatedDevice(settings: settings, clock: ManualClock())
/// ```
///
/// Every availability rule in docs/monitoring.md is computed from this value
/// (``effectiveAuthorization``, ``isRegionMonitoringAvailable``, ``deliveryBlockers``),
/// so a test states a situation in a few lines and checks what the app is told.
public struct DeviceSettings: Sendable, Hashable, Codable {
    /// The device has the positioning hardware region monitoring needs.
    public var hasLocationHardware: Bool = true
    /// Settings › Privacy › Location Services (the device-wide switch).
    public var locationServicesEnabled: Bool = true
    /// This app's authorisation as stored by the system.
    public var authorization: AuthorizationStatus = .notDetermined
    /// The answer the simulated user gives to the next prompt.
    public var promptResponse: PromptResponse = .allowAlways
    /// Background App Refresh for this app (and the device).
    public var backgroundRefreshEnabled: Bool = true
    /// Airplane mode: the radios are off and the positioning hardware is not powered.
    public var airplaneMode: Bool = false
    /// Wi-Fi on: positioning is Wi-Fi assisted; off: GPS / cell only, poorer accuracy.
    public var wifiEnabled: Bool = true
    /// Precise location granted (`false`: approximate location only).
    public var preciseLocation: Bool = true
    /// The app's state.
    public var appState: AppState = .foreground
    /// The operating system: iOS relaunches a terminated app for a region event; macOS never
    /// does and delivers only while the app runs and the Mac is awake.
    public var platform: Platform = .iOS
    /// How long (seconds) a suspended or relaunched app runs in the background to handle a
    /// region event before it is suspended again (Apple: "about 10 seconds").
    public var backgroundWakeDuration: TimeInterval = 10
    /// The most regions (location manager regions and monitor conditions together) one app
    /// may monitor at once. Core Location's limit is 20.
    public var regionLimit: Int = 20
    /// The largest circle radius (metres) the device monitors; larger ones fail.
    /// Apple does not publish its value; 400 km is our configurable default.
    public var maximumRegionMonitoringDistance: Double = 400_000
    /// The hysteresis the device applies (Apple's documented ~200 m / 20 s by default).
    public var policy: HysteresisPolicy = .coreLocation

    public init() {}

    /// The status the app reads: `denied` whenever location services are off device-wide
    /// (Core Location reports it that way), otherwise the stored ``authorization``.
    public var effectiveAuthorization: AuthorizationStatus {
        locationServicesEnabled ? authorization : .denied
    }

    /// Whether the hardware supports region monitoring at all (Core Location's
    /// `isMonitoringAvailable(for:)`: hardware only, not permissions or switches).
    public var isRegionMonitoringAvailable: Bool { hasLocationHardware }

    /// Whether the device produces positions now (hardware present and powered, services on).
    public var canLocate: Bool { hasLocationHardware && locationServicesEnabled && !airplaneMode }

    /// Why a region event happening now would not reach the app; empty when it would.
    public var deliveryBlockers: DiagnosticFlags { deliveryBlockers(appInUse: appState.isInUse) }

    /// ``deliveryBlockers`` for an app that is (or is not) in use — a closed monitor's app
    /// is not running, hence not in use.
    func deliveryBlockers(appInUse: Bool) -> DiagnosticFlags {
        var f = DiagnosticFlags()
        if !locationServicesEnabled { f.insert(.authorizationDeniedGlobally) }
        switch authorization {
        case .denied: f.insert(.authorizationDenied)
        case .restricted: f.insert(.authorizationRestricted)
        case .notDetermined: f.insert(.authorizationRequestInProgress)
        case .authorizedWhenInUse: if !appInUse { f.insert(.insufficientlyInUse) }
        case .authorizedAlways: break
        }
        if !preciseLocation { f.insert(.accuracyLimited) }
        if !backgroundRefreshEnabled, !appInUse { f.insert(.backgroundRefreshDisabled) }
        return f
    }
}
