#if canImport(CoreLocation)
import CoreLocation
#if APPLE_TYPECHECK
import CoreLocationBridge // Tests/AppleTypeCheck compiles this file in a module of its own
#endif

extension LocationSample {
    /// The sample of a location Core Location delivered.
    public init(_ location: CLLocation) {
        self.init(
            latitude: location.coordinate.latitude, longitude: location.coordinate.longitude,
            horizontalAccuracy: location.horizontalAccuracy,
            speed: location.speed, speedAccuracy: location.speedAccuracy,
            course: location.course, courseAccuracy: location.courseAccuracy,
            timestamp: location.timestamp)
    }
}
#endif
