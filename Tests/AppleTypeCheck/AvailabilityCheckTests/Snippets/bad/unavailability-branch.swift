// `#unavailable` is the branch where the API is missing.
// expect: iOS 17.0] 'CLMonitor.Event.serviceSessionRequired' is only available in iOS 18
import CoreLocation

@available(iOS 17, macOS 14, *)
func needsSession(_ event: CLMonitor.Event) -> Bool {
    if #unavailable(iOS 18, macOS 15) {
        return event.serviceSessionRequired
    }
    return false
}
