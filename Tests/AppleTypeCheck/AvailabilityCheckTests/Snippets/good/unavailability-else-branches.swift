// The other side of a lone `#unavailable` is the newer version: its `else`, and the `else` of a
// `guard #unavailable`.
import CoreLocation

@available(iOS 17, macOS 14, *)
func limited(_ event: CLMonitor.Event) -> Bool {
    if #unavailable(iOS 18, macOS 15) {
        return false
    } else {
        return event.accuracyLimited
    }
}

@available(iOS 17, macOS 14, *)
func denied(_ event: CLMonitor.Event) -> Bool {
    guard #unavailable(iOS 18, macOS 15) else { return event.authorizationDenied }
    return false
}
