// Each platform is checked in the branch of `#if` it compiles: the iOS branch on iOS, the
// `#elseif os(macOS)` branch on macOS; `canImport(UIKit)` is the iOS side.
// expect: if-os-branches.swift:12:
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
// expect: if-os-branches.swift:14:
// expect: macOS 14.0] 'CLAuthorizationStatus.authorizedWhenInUse' is unavailable in macOS
// expect: if-os-branches.swift:20:
import CoreLocation

func holdOrCheck(_ status: CLAuthorizationStatus) -> Any {
    #if os(iOS)
    return CLServiceSession(authorization: .whenInUse)
    #elseif os(macOS)
    return status == .authorizedWhenInUse
    #else
    return status
    #endif
}
#if canImport(UIKit)
let phoneSession = CLServiceSession(authorization: .none)
#endif
