// A case one platform lacks, named only where it exists.
import CoreLocation

func isAuthorized(_ status: CLAuthorizationStatus) -> Bool {
    switch status {
    #if os(iOS)
    case .authorizedAlways, .authorizedWhenInUse: return true
    #else
    case .authorizedAlways: return true
    #endif
    default: return false
    }
}

@available(iOS 18, *)
@available(macOS, unavailable)
final class PhoneOnly {
    let session = CLServiceSession(authorization: .none)
}
