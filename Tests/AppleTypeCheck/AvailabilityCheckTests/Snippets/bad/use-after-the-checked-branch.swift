// `if #available` covers its own branch only, not the code after it.
// expect: iOS 17.0] 'CLMonitor.Event.conditionLimitExceeded' is only available in iOS 18
import CoreLocation

@available(iOS 17, macOS 14, *)
func limitReached(_ event: CLMonitor.Event) -> Bool {
    if #available(iOS 18, macOS 15, *) {
        _ = event.persistenceUnavailable
    }
    return event.conditionLimitExceeded
}
