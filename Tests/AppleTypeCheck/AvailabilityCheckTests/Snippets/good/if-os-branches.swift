// Each platform's branch of `#if` uses only what that platform has.
import CoreLocation

func describe(_ status: CLAuthorizationStatus) -> String {
    #if os(iOS)
    if #available(iOS 18, *) {
        _ = CLServiceSession(authorization: .whenInUse)
    }
    return status == .authorizedWhenInUse ? "when in use" : "other"
    #elseif os(macOS)
    return status == .authorizedAlways ? "always" : "other"
    #else
    return "\(status)"
    #endif
}

#if canImport(UIKit)
@available(iOS 18, *)
let phoneSession = CLServiceSession(authorization: .none)
#endif
