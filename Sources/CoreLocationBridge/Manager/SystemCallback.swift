import Geofencing
import RegionMonitoring

/// One `CLLocationManagerDelegate` call, as platform-neutral values (region identifiers, not
/// `CLRegion` objects), so that everything done with it is tested on Linux.
public enum SystemCallback: Sendable, Hashable {
    /// `locationManager(_:didEnterRegion:)`.
    case didEnterRegion(identifier: String)
    /// `locationManager(_:didExitRegion:)`.
    case didExitRegion(identifier: String)
    /// `locationManager(_:didDetermineState:for:)`: after a transition or a `requestState(for:)`.
    case didDetermineState(RegionState, identifier: String)
    /// `locationManager(_:didStartMonitoringFor:)`.
    case didStartMonitoring(identifier: String)
    /// `locationManager(_:monitoringDidFailFor:withError:)`; the region can be `nil`.
    case monitoringDidFail(identifier: String?, SystemError)
    /// `locationManager(_:didFailWithError:)`: a location request (or the service) failed.
    case didFailWithError(SystemError)
    /// `locationManagerDidChangeAuthorization(_:)`, with the manager's `authorizationStatus`.
    case didChangeAuthorization(AuthorizationStatus)
    /// `locationManager(_:didUpdateLocations:)`, oldest first.
    case didUpdateLocations([LocationSample])
}

/// A `CLError.Code` the bridge tells apart (raw values are Core Location's).
public enum SystemError: Sendable, Hashable {
    /// `CLError.Code.locationUnknown` (0): no location right now; the system keeps trying.
    case locationUnknown
    /// `CLError.Code.denied` (1): the user denied location services to the app.
    case denied
    /// `CLError.Code.regionMonitoringDenied` (4).
    case regionMonitoringDenied
    /// `CLError.Code.regionMonitoringFailure` (5): this region cannot be monitored.
    case regionMonitoringFailure
    /// `CLError.Code.regionMonitoringSetupDelayed` (6): Core Location could not start monitoring
    /// the region at once; it keeps the region and starts it later.
    case regionMonitoringSetupDelayed
    /// `CLError.Code.regionMonitoringResponseDelayed` (7): the region is monitored, its events
    /// will come, later than usual.
    case regionMonitoringResponseDelayed
    /// Any other code.
    case other(code: Int)

    /// The error for Core Location's code `code`.
    public init(code: Int) {
        switch code {
        case 0: self = .locationUnknown
        case 1: self = .denied
        case 4: self = .regionMonitoringDenied
        case 5: self = .regionMonitoringFailure
        case 6: self = .regionMonitoringSetupDelayed
        case 7: self = .regionMonitoringResponseDelayed
        default: self = .other(code: code)
        }
    }

    /// Core Location's code.
    public var code: Int {
        switch self {
        case .locationUnknown: 0
        case .denied: 1
        case .regionMonitoringDenied: 4
        case .regionMonitoringFailure: 5
        case .regionMonitoringSetupDelayed: 6
        case .regionMonitoringResponseDelayed: 7
        case .other(let c): c
        }
    }
}
