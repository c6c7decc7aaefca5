import Foundation
import Geofencing

/// Errors the ``LocationManager`` reports through
/// ``LocationManagerDelegate/locationManager(_:monitoringDidFailFor:withError:)``
/// (Core Location's `CLError` codes, each with the detail an app needs to act).
public enum RegionMonitoringError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `CLError.regionMonitoringDenied`: the app is not allowed to monitor regions
    /// (denied, restricted, or location services off). The region stays registered and
    /// starts if permission is granted later.
    case regionMonitoringDenied(AuthorizationStatus)
    /// `CLError.regionMonitoringFailure`: this region cannot be monitored.
    case regionMonitoringFailure(FailureReason)

    /// Why a region could not be monitored.
    public enum FailureReason: Sendable, Hashable, CustomStringConvertible {
        /// The app already monitors `limit` regions.
        case limitExceeded(limit: Int)
        /// The region is larger than ``LocationManager/maximumRegionMonitoringDistance``.
        case radiusTooLarge(radius: Double, maximum: Double)
        /// The device has no region-monitoring hardware.
        case unavailable
        /// The region itself is invalid (field named by the engine's error).
        case invalidRegion(GeofencingError)
        /// The system refused the region without saying why (Core Location's
        /// `CLError.regionMonitoringFailure` and other codes, `code` being `CLError.Code`'s raw value).
        case reportedBySystem(code: Int)

        public var description: String {
            switch self {
            case .limitExceeded(let n): "the app already monitors the maximum of \(n) regions"
            case .radiusTooLarge(let r, let m): "radius \(r) m exceeds the maximum of \(m) m"
            case .unavailable: "region monitoring is not available on this device"
            case .invalidRegion(let e): "invalid region: \(e)"
            case .reportedBySystem(let code): "the system refused to monitor the region (CLError code \(code))"
            }
        }
    }

    public var description: String {
        switch self {
        case .regionMonitoringDenied(let s): "region monitoring denied (authorization \(s.rawValue))"
        case .regionMonitoringFailure(let r): "region monitoring failed: \(r)"
        }
    }
}
