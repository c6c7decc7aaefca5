// Conditions after an `#available` are in its scope, as are `while` bodies under one.
import CoreLocation

@available(iOS 17, macOS 14, *)
func flags(_ event: CLMonitor.Event) -> Bool {
    if #available(iOS 18, macOS 15, *), event.accuracyLimited, let first = [event.conditionUnsupported].first {
        return first
    }
    while #available(iOS 18, macOS 15, *), event.authorizationDenied {
        return event.persistenceUnavailable
    }
    guard #available(iOS 18, macOS 15, *), !event.insufficientlyInUse else { return false }
    return event.serviceSessionRequired
}
