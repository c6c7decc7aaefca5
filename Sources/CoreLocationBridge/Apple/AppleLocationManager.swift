#if canImport(CoreLocation)
import CoreLocation
import Foundation
import Geofencing
import RegionMonitoring
#if APPLE_TYPECHECK
import CoreLocationBridge // Tests/AppleTypeCheck compiles this file in a module of its own
#endif

/// Core Location's `CLLocationManager` as a ``SystemLocationManager``: each method is the one
/// Apple call it names; each delegate callback becomes a ``SystemCallback``. All decisions
/// are made by ``CoreLocationManagerBackend``, tested on Linux against ``FakeCoreLocation``.
///
/// ```swift
/// let system = AppleLocationManager()                       // at launch, on the main actor
/// let backend = await CoreLocationManagerBackend(system: system)
/// ```
///
/// Create it at every launch, before the launch finishes: the system delivers the region
/// event it relaunched the app for to the delegate of a manager created then. Callbacks that
/// arrive before the backend has set its handler are kept and handed over when it does.
@MainActor
public final class AppleLocationManager: SystemLocationManager {
    /// The Core Location manager, for the settings this bridge does not wrap (on iOS,
    /// `allowsBackgroundLocationUpdates` for hybrid mode's continuous updates).
    public let manager: CLLocationManager
    private let relay = DelegateRelay()
    /// The regions this launch started, by identifier: `monitoredRegions` "may not be
    /// immediately reflected" after a start, so a stop or a state request right after it finds
    /// the region here.
    private var started: [String: CLRegion] = [:]

    /// Creates the manager; set nothing else on it before the backend exists. Authorisation is
    /// never asked here: only when the app calls `requestWhenInUseAuthorization()` or
    /// `requestAlwaysAuthorization()`.
    public init() {
        manager = CLLocationManager()
        manager.delegate = relay
    }

    public func setCallbackHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) {
        relay.setHandler(handler)
    }

    public func startMonitoring(_ region: SystemRegion) {
        let circle = region.circularRegion
        started[region.identifier] = circle
        manager.startMonitoring(for: circle)
    }

    public func stopMonitoring(identifier: String) {
        if let region = region(identifier) { manager.stopMonitoring(for: region) }
        started[identifier] = nil
    }

    public func requestState(identifier: String) {
        if let region = region(identifier) { manager.requestState(for: region) }
    }

    /// The region object for `identifier`: the one this launch started, else the system's
    /// (an earlier launch's).
    private func region(_ identifier: String) -> CLRegion? {
        started[identifier] ?? manager.monitoredRegions.first { $0.identifier == identifier }
    }

    public var monitoredRegions: [SystemRegion] {
        manager.monitoredRegions.compactMap { ($0 as? CLCircularRegion).flatMap(SystemRegion.init) }
            .sorted { $0.identifier < $1.identifier }
    }

    public var maximumRegionMonitoringDistance: Double { manager.maximumRegionMonitoringDistance }

    public var isMonitoringAvailable: Bool { CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self) }

    public var authorizationStatus: AuthorizationStatus { AuthorizationStatus(manager.authorizationStatus) }

    public func requestWhenInUseAuthorization() { manager.requestWhenInUseAuthorization() }

    public func requestAlwaysAuthorization() { manager.requestAlwaysAuthorization() }

    public var location: LocationSample? { manager.location.map(LocationSample.init) }

    public func requestLocation() { manager.requestLocation() }

    public func startUpdatingLocation() { manager.startUpdatingLocation() }

    public func stopUpdatingLocation() { manager.stopUpdatingLocation() }

    public var accuracyAuthorization: AccuracyAuthorization { AccuracyAuthorization(manager.accuracyAuthorization) }
}

/// The `CLLocationManagerDelegate`: turns each call into a ``SystemCallback`` on the thread
/// Core Location calls it on, and passes it on (or keeps it until a handler is set).
/// Sendable: the handler and the kept callbacks are read and written under `lock` only.
final class DelegateRelay: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable (SystemCallback) -> Void)?
    private var kept: [SystemCallback] = []

    func setHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) {
        let waiting: [SystemCallback] = lock.withLock {
            self.handler = handler
            defer { kept = [] }
            return kept
        }
        for callback in waiting { handler(callback) }
    }

    private func send(_ callback: SystemCallback) {
        let handler: (@Sendable (SystemCallback) -> Void)? = lock.withLock {
            if self.handler == nil { kept.append(callback) }
            return self.handler
        }
        handler?(callback)
    }

    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        send(.didEnterRegion(identifier: region.identifier))
    }

    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
        send(.didExitRegion(identifier: region.identifier))
    }

    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {
        send(.didDetermineState(RegionState(state), identifier: region.identifier))
    }

    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {
        send(.didStartMonitoring(identifier: region.identifier))
    }

    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {
        send(.monitoringDidFail(identifier: region?.identifier, SystemError(code: (error as NSError).code)))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        send(.didFailWithError(SystemError(code: (error as NSError).code)))
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        send(.didChangeAuthorization(AuthorizationStatus(manager.authorizationStatus)))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        send(.didUpdateLocations(locations.map(LocationSample.init)))
    }
}
#endif
