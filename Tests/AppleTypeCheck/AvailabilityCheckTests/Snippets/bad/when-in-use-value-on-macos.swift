// A value use of a case macOS does not have.
// Xcode (macOS): 'authorizedWhenInUse' is unavailable in macOS
// expect: macOS 14.0] 'CLAuthorizationStatus.authorizedWhenInUse' is unavailable in macOS
import CoreLocation

func isWhenInUse(_ status: CLAuthorizationStatus) -> Bool { status == .authorizedWhenInUse }
