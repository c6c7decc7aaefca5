// Code that never runs on a platform is not checked for it: `@available(*, unavailable)`
// everywhere, `@available(macOS, unavailable)` on macOS, and an enum case with associated
// values may be unavailable on a platform.
import CoreLocation

@available(*, unavailable)
func never(_ event: CLMonitor.Event) -> CLServiceSession {
    _ = event.accuracyLimited
    return CLServiceSession(authorization: .none)
}

@available(macOS, unavailable)
func phoneOnly(_ manager: CLLocationManager, _ status: CLAuthorizationStatus) -> Bool {
    manager.showsBackgroundLocationIndicator = true
    return status == .authorizedWhenInUse
}

enum Holder {
    @available(macOS, unavailable)
    case whenInUse(Int)
    case none
}
