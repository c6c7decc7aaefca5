// A deprecated declaration may use deprecated API without a warning, as in Xcode; an API
// "to be deprecated" (CLCircularRegion: `deprecated: 100000`) is not deprecated yet.
import CoreLocation

@available(iOS, deprecated: 14.0, message: "Use authorizationStatus")
func legacyAuthorized(_ status: CLAuthorizationStatus) -> Bool { status == .authorized }

func region() -> CLRegion {
    CLCircularRegion(center: CLLocationCoordinate2D(latitude: 0, longitude: 0), radius: 100, identifier: "a")
}
