// Uses in every kind of statement inherit the scope: loop bodies and conditions, `where`
// clauses of cases, `defer` blocks, string interpolation, nested functions (one property each).
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited'
// expect: iOS 17.0] 'CLMonitor.Event.conditionUnsupported'
// expect: iOS 17.0] 'CLMonitor.Event.authorizationDenied'
// expect: iOS 17.0] 'CLMonitor.Event.persistenceUnavailable'
// expect: iOS 17.0] 'CLMonitor.Event.insufficientlyInUse'
// expect: iOS 17.0] 'CLMonitor.Event.authorizationRestricted'
// expect: iOS 17.0] 'CLMonitor.Event.serviceSessionRequired'
import CoreLocation

@available(iOS 17, macOS 14, *)
func describe(_ events: [CLMonitor.Event]) -> String {
    var text = ""
    for event in events where event.accuracyLimited {}
    while events.contains(where: { $0.conditionUnsupported }) {
        break
    }
    repeat {
        _ = events.first?.authorizationDenied
    } while false
    defer {
        _ = events.first?.persistenceUnavailable
    }
    switch events.first?.state {
    case .satisfied? where events[0].insufficientlyInUse: text += "?"
    default: break
    }
    text += "\(events.first?.authorizationRestricted ?? false)"
    func nested() -> Bool { events.first?.serviceSessionRequired ?? false }
    return text + "\(nested())"
}
