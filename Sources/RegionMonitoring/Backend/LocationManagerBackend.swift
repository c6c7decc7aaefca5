import Foundation
import Geofencing

/// The system service behind a ``LocationManager``: what Core Location's `CLLocationManager`
/// does for an app. ``SimulatedDevice`` is one backend; `CoreLocationBridge` provides one on
/// a real `CLLocationManager` (and a fake of it for tests), so an app writes its monitoring
/// code once against ``LocationManager`` and runs it on either.
///
/// ```swift
/// let manager = await LocationManager(backend: device)                 // tests, Linux
/// let manager = await LocationManager(backend: CoreLocationManagerBackend(system))  // a phone
/// ```
///
/// The contract every backend keeps (docs/monitoring.md states it with the rules behind it):
/// - regions are app-wide: every manager sees the same ``monitoredRegions``; region events go
///   to every manager's delegate, failures and `requestState` answers to the calling manager's;
/// - delegate methods are called on the backend's own executor, one at a time, in order;
/// - a registration with an identifier already monitored replaces that region;
/// - a region the backend cannot monitor is never added to ``monitoredRegions`` and fails
///   through `monitoringDidFailFor`; one without authorisation stays registered and starts
///   when authorisation arrives.
public protocol LocationManagerBackend: AnyObject, Sendable {
    /// Attaches `manager` (called once, by its initialiser).
    func register(_ manager: LocationManager) async
    /// Sets `manager`'s delegate (held weakly) and tells it the current authorisation.
    func setDelegate(_ delegate: (any LocationManagerDelegate)?, for manager: LocationManager) async
    /// Starts monitoring `region` for the app; the outcome reaches `manager`'s delegate.
    func startMonitoring(_ region: MonitoredRegion, by manager: LocationManager) async
    /// Stops monitoring the region with this identifier; nothing if it is not monitored.
    func stopMonitoring(_ identifier: String) async
    /// The app's monitored regions.
    var monitoredRegions: Set<MonitoredRegion> { get async }
    /// Asks for `region`'s state; the answer reaches `manager`'s delegate (`didDetermineState`).
    func requestState(_ region: MonitoredRegion, by manager: LocationManager) async
    /// The state of the monitored region `identifier`, awaited: the simulated device answers
    /// with what it knows now (`unknown` until a first determination has counted); a Core
    /// Location backend requests the state and waits for the system's answer. `unknown` for a
    /// region that is not monitored.
    func determineState(of identifier: String) async -> RegionState
    /// The app's authorisation as the system applies it.
    var authorizationStatus: AuthorizationStatus { get async }
    /// Prompts for "Always" (`always`) or "When In Use".
    func requestAuthorization(always: Bool) async
    /// The largest radius, metres, the backend monitors; −1 when region monitoring is unavailable.
    var maximumRegionMonitoringDistance: Double { get async }
    /// How many regions the app may monitor at once (Core Location: 20).
    var regionLimit: Int { get async }
    /// The longest a region event may come after the crossing was confirmed (seconds): Core
    /// Location states 3–5 minutes; 0 by default (events as they are confirmed: the simulated
    /// device). `LocationManagerSlotMonitor` passes it to the planner as its event latency.
    var eventLatency: TimeInterval { get }
    /// Starts (`true`) or stops continuous location updates, delivered to every delegate's
    /// `didUpdateLocations`.
    func setLocationUpdates(_ enabled: Bool) async
    /// The newest location the system has for this device, or `nil` if it has none: the fix a
    /// planner re-plans from when an event carries no position of its own. A Core Location
    /// backend makes a one-shot request when its last location is stale.
    func currentLocation() async -> LocationFix?
    /// The location a region event is handed over with, at once: a recent location the backend
    /// already holds, or `nil`. Never waits for a new position (a relaunched app has seconds;
    /// a late event has no fresh position to wait for).
    func eventLocation() async -> LocationFix?
}

extension LocationManagerBackend {
    /// Events as they are confirmed.
    public var eventLatency: TimeInterval { 0 }

    /// ``currentLocation()``, for backends that answer it at once (the simulated device).
    public func eventLocation() async -> LocationFix? { await currentLocation() }
}
