// Checks that look like they cover a use and do not: the `else` of a combined `#available`, the
// `else` of an `#unavailable` combined with another condition, a `guard` inside a closure or a
// nested block (it covers only that closure or block), a check for too old a version, a check
// for the other platform.
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited'
// expect: iOS 17.0] 'CLMonitor.Event.conditionUnsupported'
// expect: iOS 17.0] 'CLMonitor.Event.authorizationDenied'
// expect: iOS 17.0] 'CLMonitor.Event.persistenceUnavailable'
// expect: iOS 17.0] '__CLMonitoringState.unmonitored' is only available in iOS 17.2
// expect: iOS 17.0] 'CLMonitor.Event.insufficientlyInUse'
import CoreLocation

@available(iOS 17, macOS 14, *)
func flags(_ event: CLMonitor.Event, _ flag: Bool) -> [Bool] {
    var out: [Bool] = []
    if #available(iOS 18, macOS 15, *), flag {
        out.append(true)
    } else {
        out.append(event.accuracyLimited)
    }
    if #unavailable(iOS 18, macOS 15), flag {
        out.append(false)
    } else {
        out.append(event.conditionUnsupported)
    }
    let check: () -> Bool = {
        guard #available(iOS 18, macOS 15, *) else { return false }
        return true
    }
    out.append(check() && event.authorizationDenied)
    if flag {
        guard #available(iOS 18, macOS 15, *) else { return out }
        out.append(true)
    }
    out.append(event.persistenceUnavailable)
    if #available(iOS 17.1, macOS 14.2, *) {
        out.append(event.state == .unmonitored)
    }
    if #available(macOS 15, *) {
        out.append(event.insufficientlyInUse)
    }
    return out
}
