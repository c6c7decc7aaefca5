import Foundation
import Geofencing

/// Receives a ``LocationManager``'s region events (Core Location's
/// `CLLocationManagerDelegate`). Every method has an empty default.
///
/// Methods are called synchronously on the backend's actor, in event order; a delegate must
/// be `Sendable` (an actor-free class guarding its state, or one that forwards to a stream).
public protocol LocationManagerDelegate: AnyObject, Sendable {
    /// The device entered `region` (only when `notifyOnEntry`).
    func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion)
    /// The device left `region` (only when `notifyOnExit`).
    func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion)
    /// The state of `region`: after each transition (whatever the notify flags) and in answer
    /// to ``LocationManager/requestState(for:)``.
    func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: MonitoredRegion)
    /// Monitoring of `region` has started (at registration when authorised, else when
    /// authorisation arrives).
    func locationManager(_ manager: LocationManager, didStartMonitoringFor region: MonitoredRegion)
    /// `region` cannot be monitored, or monitoring is denied.
    func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: MonitoredRegion?,
        withError error: RegionMonitoringError)
    /// The app's authorisation is `status` (once when the delegate is set, then on each change).
    func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus)
    /// New positions, oldest first, while location updates are on
    /// (``LocationManager/startUpdatingLocation()``; Core Location's `didUpdateLocations`).
    func locationManager(_ manager: LocationManager, didUpdateLocations fixes: [LocationFix])
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion) {}
    public func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion) {}
    public func locationManager(
        _ manager: LocationManager, didDetermineState state: RegionState, for region: MonitoredRegion
    ) {}
    public func locationManager(_ manager: LocationManager, didStartMonitoringFor region: MonitoredRegion) {}
    public func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: MonitoredRegion?,
        withError error: RegionMonitoringError
    ) {}
    public func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus) {}
    public func locationManager(_ manager: LocationManager, didUpdateLocations fixes: [LocationFix]) {}
}
