// CLAuthorizationStatus is an open (non-frozen) enum of a library-evolution module: a switch
// naming every case still needs `@unknown default`; a warning in Swift 6, an error with warnings as errors.
// Xcode: switch covers known cases, but 'CLAuthorizationStatus' may have additional unknown values, possibly added in future versions
// expect: [Swift 6] switch covers known cases, but 'CLAuthorizationStatus' may have additional unknown values
import CoreLocation

func describe(_ status: CLAuthorizationStatus) -> String {
    switch status {
    case .notDetermined: return "?"
    case .restricted: return "restricted"
    case .denied: return "denied"
    case .authorizedAlways: return "always"
    case .authorizedWhenInUse: return "when in use"
    }
}
