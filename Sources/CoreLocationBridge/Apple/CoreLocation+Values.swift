#if canImport(CoreLocation)
import CoreLocation
import Geodesy
import Geofencing
import RegionMonitoring
#if APPLE_TYPECHECK
import CoreLocationBridge // Tests/AppleTypeCheck compiles this file in a module of its own
#endif

// Core Location's values, turned into the package's: one initialiser each, nothing else.

extension AuthorizationStatus {
    /// The package's status for Core Location's.
    public init(_ status: CLAuthorizationStatus) {
        switch status {
        case .notDetermined: self = .notDetermined
        case .restricted: self = .restricted
        case .denied: self = .denied
        case .authorizedAlways: self = .authorizedAlways
        #if os(macOS)
        // macOS has no "when in use": `.authorizedAlways` (and its old name `.authorized`) only.
        #else
        case .authorizedWhenInUse: self = .authorizedWhenInUse
        #endif
        @unknown default: self = .notDetermined
        }
    }
}

extension AccuracyAuthorization {
    /// The package's accuracy for Core Location's.
    public init(_ accuracy: CLAccuracyAuthorization) {
        switch accuracy {
        case .fullAccuracy: self = .fullAccuracy
        case .reducedAccuracy: self = .reducedAccuracy
        @unknown default: self = .reducedAccuracy
        }
    }
}

extension RegionState {
    /// The package's state for Core Location's.
    public init(_ state: CLRegionState) {
        switch state {
        case .inside: self = .inside
        case .outside: self = .outside
        case .unknown: self = .unknown
        @unknown default: self = .unknown
        }
    }
}

extension SystemRegion {
    /// The region Core Location holds, or `nil` if its centre is not a valid coordinate.
    public init?(_ circle: CLCircularRegion) {
        guard let center = try? Coordinate(latitude: circle.center.latitude, longitude: circle.center.longitude) else {
            return nil
        }
        self.init(
            identifier: circle.identifier, center: center, radius: circle.radius,
            notifyOnEntry: circle.notifyOnEntry, notifyOnExit: circle.notifyOnExit)
    }

    /// The `CLCircularRegion` for this region.
    public var circularRegion: CLCircularRegion {
        let circle = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: center.latitude, longitude: center.longitude),
            radius: radius, identifier: identifier)
        circle.notifyOnEntry = notifyOnEntry
        circle.notifyOnExit = notifyOnExit
        return circle
    }
}
#endif
