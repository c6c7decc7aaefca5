// The second mistake: a switch over CLAuthorizationStatus naming a case macOS does not have.
// expect: macOS 14.0] 'CLAuthorizationStatus.authorizedWhenInUse' is unavailable in macOS
import CoreLocation

func isAuthorized(_ status: CLAuthorizationStatus) -> Bool {
    switch status {
    case .authorizedAlways, .authorizedWhenInUse: return true
    default: return false
    }
}
