import Foundation
import Geofencing

/// The classic region-monitoring API (Core Location's `CLLocationManager`), on any
/// ``LocationManagerBackend``: a ``SimulatedDevice`` in tests and on Linux, Core Location on a
/// phone (`CoreLocationBridge`). The app's code is the same on both.
///
/// ```swift
/// let manager = await LocationManager(device: device)          // or LocationManager(backend:)
/// await manager.setDelegate(appDelegate)
/// await manager.requestAlwaysAuthorization()
/// await manager.startMonitoring(for: CircularRegion(center: bridge, radius: 500, identifier: "bridge"))
/// await manager.requestState(for: region)      // → didDetermineState
/// ```
///
/// Regions are shared by every manager of the app (as in Core Location): `monitoredRegions`
/// is the same set from any of them, and region events go to every manager's delegate;
/// failures and `requestState` answers go to the calling manager's delegate. Calls are
/// `async` because the backend is an actor; on the simulated device their effects are
/// complete when they return, on Core Location the system answers later (as it does there).
/// The delegate is held weakly.
public final class LocationManager: Sendable {
    /// The system service this manager talks to.
    public let backend: any LocationManagerBackend

    /// Creates a manager on `backend`.
    public init(backend: any LocationManagerBackend) async {
        self.backend = backend
        await backend.register(self)
    }

    /// Creates a manager on the simulated `device`.
    public convenience init(device: SimulatedDevice) async {
        await self.init(backend: device)
    }

    /// The simulated device this manager talks to, if that is its backend.
    public var device: SimulatedDevice? { backend as? SimulatedDevice }

    /// Sets the delegate (held weakly); it is told the current authorisation at once.
    public func setDelegate(_ delegate: (any LocationManagerDelegate)?) async {
        await backend.setDelegate(delegate, for: self)
    }

    /// Starts monitoring `region`. A monitored region with the same identifier is replaced
    /// (its state starts afresh). Failures arrive at `monitoringDidFailFor`: the per-app
    /// limit, a radius above ``maximumRegionMonitoringDistance``, no hardware, or an invalid
    /// region (not registered); denied / restricted authorisation (registered, starts when
    /// permission is granted).
    public func startMonitoring(for region: some GeographicRegion) async {
        await backend.startMonitoring(region.monitoredRegion, by: self)
    }

    /// Stops monitoring the region with `region`'s identifier; no effect if not monitored.
    public func stopMonitoring(for region: some GeographicRegion) async {
        await backend.stopMonitoring(region.monitoredRegion.identifier)
    }

    /// The regions the app monitors (shared by all managers; persists while the device runs).
    public var monitoredRegions: Set<MonitoredRegion> {
        get async { await backend.monitoredRegions }
    }

    /// Asks for `region`'s state; the answer arrives at `didDetermineState`: at once when the
    /// state is known, otherwise once it becomes known (a region's first state counts after it
    /// has been held like a crossing); `.unknown` at once for a region that is not monitored.
    public func requestState(for region: some GeographicRegion) async {
        await backend.requestState(region.monitoredRegion, by: self)
    }

    /// Starts continuous location updates for the app: every new position reaches the
    /// delegates' `didUpdateLocations` (Core Location's `startUpdatingLocation()`; the
    /// planner asks for them in hybrid mode and to re-plan).
    public func startUpdatingLocation() async {
        await backend.setLocationUpdates(true)
    }

    /// Stops continuous location updates.
    public func stopUpdatingLocation() async {
        await backend.setLocationUpdates(false)
    }

    /// The app's authorisation (`.denied` while location services are off device-wide).
    public var authorizationStatus: AuthorizationStatus {
        get async { await backend.authorizationStatus }
    }

    /// Prompts for "Always" (when not determined, or once to upgrade from when-in-use). The
    /// simulated user answers with ``DeviceSettings/promptResponse``; the app must be in
    /// the foreground.
    public func requestAlwaysAuthorization() async {
        await backend.requestAuthorization(always: true)
    }

    /// Prompts for "When In Use" (only when not determined; app in the foreground).
    public func requestWhenInUseAuthorization() async {
        await backend.requestAuthorization(always: false)
    }

    /// The largest region radius, metres, the device monitors; `-1` when region monitoring
    /// is not available on the device.
    public var maximumRegionMonitoringDistance: Double {
        get async { await backend.maximumRegionMonitoringDistance }
    }

    /// Whether this kind of region can be monitored on devices with positioning hardware
    /// (both of ours can). Like Core Location, it ignores permissions and switches.
    public static func isMonitoringAvailable(for regionType: any GeographicRegion.Type) -> Bool {
        regionType == CircularRegion.self || regionType == PolygonRegion.self || regionType == MonitoredRegion.self
    }

    /// ``isMonitoringAvailable(for:)`` on a device with `settings` (false without hardware).
    public static func isMonitoringAvailable(
        for regionType: any GeographicRegion.Type, on settings: DeviceSettings
    ) -> Bool {
        settings.isRegionMonitoringAvailable && isMonitoringAvailable(for: regionType)
    }
}
