// A switch over CLAuthorizationStatus naming a case macOS does not have compiles for macOS: a
// pattern may name an unavailable case (a value can never be it there); only a value use fails
// (bad/when-in-use-value-on-macos.swift).
import CoreLocation

func isAuthorized(_ status: CLAuthorizationStatus) -> Bool {
    switch status {
    case .authorizedAlways, .authorizedWhenInUse: return true
    default: return false
    }
}
