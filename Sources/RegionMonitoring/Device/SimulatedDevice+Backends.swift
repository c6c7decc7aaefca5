import Foundation
import Geofencing

/// The simulated device is a backend of both monitoring APIs: ``LocationManager`` and
/// ``Monitor`` run on it exactly as they run on Core Location (`CoreLocationBridge`).
extension SimulatedDevice: LocationManagerBackend, MonitorBackend {
    /// The app's authorisation as the system applies it (`.denied` while location services
    /// are off device-wide).
    public var authorizationStatus: AuthorizationStatus { settings.effectiveAuthorization }

    /// ``DeviceSettings/maximumRegionMonitoringDistance``, or −1 without region-monitoring hardware.
    public var maximumRegionMonitoringDistance: Double {
        settings.isRegionMonitoringAvailable ? settings.maximumRegionMonitoringDistance : -1
    }

    /// ``DeviceSettings/regionLimit``.
    public var regionLimit: Int { settings.regionLimit }

    /// 0: the simulated device reports each event at the fix that confirms it.
    public nonisolated var eventLatency: TimeInterval { 0 }

    /// What the device knows now, without waiting: `unknown` until the region's first
    /// determination has been held (rule 36), and for a region that is not monitored.
    public func determineState(of identifier: String) -> RegionState {
        knownState(of: .manager(identifier: identifier))
    }

    /// The last fix the device took (the one that confirmed the newest event), or `nil`.
    public func currentLocation() -> LocationFix? { lastFix }

    /// While on, each fix the device takes reaches every delegate's `didUpdateLocations`
    /// before the region events it causes.
    public func setLocationUpdates(_ enabled: Bool) { locationUpdatesEnabled = enabled }
}
