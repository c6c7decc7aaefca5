import Foundation
import Geofencing

/// The classic region-monitoring API (Core Location's `CLLocationManager`), on a
/// ``SimulatedDevice``.
///
/// ```swift
/// let manager = await LocationManager(device: device)
/// await manager.setDelegate(appDelegate)
/// await manager.requestAlwaysAuthorization()
/// await manager.startMonitoring(for: CircularRegion(center: bridge, radius: 500, identifier: "bridge"))
/// await manager.requestState(for: region)      // → didDetermineState
/// ```
///
/// Regions are shared by every manager of the app (as in Core Location): `monitoredRegions`
/// is the same set from any of them, and region events go to every manager's delegate;
/// failures and `requestState` answers go to the calling manager's delegate. Calls are
/// `async` because the device is an actor; their effects are complete when they return.
/// The delegate is held weakly.
public final class LocationManager: Sendable {
    /// The device this manager talks to.
    public let device: SimulatedDevice

    /// Creates a manager on `device`.
    public init(device: SimulatedDevice) async {
        self.device = device
        await device.register(self)
    }

    /// Sets the delegate (held weakly); it is told the current authorisation at once.
    public func setDelegate(_ delegate: (any LocationManagerDelegate)?) async {
        await device.setDelegate(delegate, for: self)
    }

    /// Starts monitoring `region`. A monitored region with the same identifier is replaced
    /// (its state starts afresh). Failures arrive at `monitoringDidFailFor`: the per-app
    /// limit, a radius above ``maximumRegionMonitoringDistance``, no hardware, or an invalid
    /// region (not registered); denied / restricted authorisation (registered, starts when
    /// permission is granted).
    public func startMonitoring(for region: some GeographicRegion) async {
        await device.startMonitoring(region.monitoredRegion, by: self)
    }

    /// Stops monitoring the region with `region`'s identifier; no effect if not monitored.
    public func stopMonitoring(for region: some GeographicRegion) async {
        await device.stopMonitoring(region.monitoredRegion.identifier)
    }

    /// The regions the app monitors (shared by all managers; persists while the device runs).
    public var monitoredRegions: Set<MonitoredRegion> {
        get async { await device.monitoredRegions }
    }

    /// Asks for `region`'s state; the answer arrives at `didDetermineState`: at once when the
    /// state is known, otherwise once it becomes known (a region's first state counts after it
    /// has been held like a crossing); `.unknown` at once for a region that is not monitored.
    public func requestState(for region: some GeographicRegion) async {
        await device.requestState(region.monitoredRegion, by: self)
    }

    /// The app's authorisation (`.denied` while location services are off device-wide).
    public var authorizationStatus: AuthorizationStatus {
        get async { await device.settings.effectiveAuthorization }
    }

    /// Prompts for "Always" (when not determined, or once to upgrade from when-in-use). The
    /// simulated user answers with ``DeviceSettings/promptResponse``; the app must be in
    /// the foreground.
    public func requestAlwaysAuthorization() async {
        await device.requestAuthorization(always: true)
    }

    /// Prompts for "When In Use" (only when not determined; app in the foreground).
    public func requestWhenInUseAuthorization() async {
        await device.requestAuthorization(always: false)
    }

    /// The largest region radius, metres, the device monitors; `-1` when region monitoring
    /// is not available on the device.
    public var maximumRegionMonitoringDistance: Double {
        get async {
            let s = await device.settings
            return s.isRegionMonitoringAvailable ? s.maximumRegionMonitoringDistance : -1
        }
    }

    /// Whether this kind of region can be monitored on devices with positioning hardware
    /// (both of ours can). Like Core Location, it ignores permissions and switches.
    public static func isMonitoringAvailable(for regionType: any GeographicRegion.Type) -> Bool {
        regionType == CircularRegion.self || regionType == PolygonRegion.self || regionType == MonitoredRegion.self
    }

    /// ``isMonitoringAvailable(for:)`` on a device with `settings` (false without hardware).
    public static func isMonitoringAvailable(for regionType: any GeographicRegion.Type, on settings: DeviceSettings) -> Bool {
        settings.isRegionMonitoringAvailable && isMonitoringAvailable(for: regionType)
    }
}
