import RegionMonitoring

/// The calls a ``CoreLocationManagerBackend`` makes on Core Location's `CLLocationManager`,
/// in platform-neutral values. `AppleLocationManager` (Apple platforms) is the real one,
/// ``FakeCoreLocation`` the one tests and apps' own tests use.
///
/// Conformers keep Core Location's rules: regions are shared by the whole app and survive a
/// relaunch; results of calls (started, failed, state, locations, authorisation) arrive later
/// as ``SystemCallback``s through the handler, in order, never from inside the call.
public protocol SystemLocationManager: AnyObject, Sendable {
    /// Where delegate calls go from now on (one handler; setting it again replaces it).
    func setCallbackHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) async
    /// `startMonitoring(for:)` with a `CLCircularRegion`.
    func startMonitoring(_ region: SystemRegion) async
    /// `stopMonitoring(for:)` of the monitored region with this identifier.
    func stopMonitoring(identifier: String) async
    /// `requestState(for:)` of the monitored region with this identifier.
    func requestState(identifier: String) async
    /// `monitoredRegions` (circular ones).
    var monitoredRegions: [SystemRegion] { get async }
    /// `maximumRegionMonitoringDistance`, metres (negative when monitoring is unavailable).
    var maximumRegionMonitoringDistance: Double { get async }
    /// `CLLocationManager.isMonitoringAvailable(for: CLCircularRegion.self)`.
    var isMonitoringAvailable: Bool { get async }
    /// `authorizationStatus`.
    var authorizationStatus: AuthorizationStatus { get async }
    /// `requestWhenInUseAuthorization()`.
    func requestWhenInUseAuthorization() async
    /// `requestAlwaysAuthorization()`.
    func requestAlwaysAuthorization() async
    /// `location`: the most recent location the system has, or `nil`.
    var location: LocationSample? { get async }
    /// `requestLocation()`: one location, delivered by `didUpdateLocations` or `didFailWithError`.
    func requestLocation() async
    /// `startUpdatingLocation()`: every new location, by `didUpdateLocations`.
    func startUpdatingLocation() async
    /// `stopUpdatingLocation()`.
    func stopUpdatingLocation() async
    /// `accuracyAuthorization`: with reduced (approximate) accuracy iOS monitors no region.
    var accuracyAuthorization: AccuracyAuthorization { get async }
}

extension SystemLocationManager {
    /// Full accuracy, for stand-ins that do not model the setting.
    public var accuracyAuthorization: AccuracyAuthorization { get async { .fullAccuracy } }
}

/// Core Location's `CLAccuracyAuthorization`: whether the user shares a precise location.
public enum AccuracyAuthorization: Sendable, Hashable {
    /// Precise Location on.
    case fullAccuracy
    /// Precise Location off: approximate locations, and no region monitoring.
    case reducedAccuracy
}
