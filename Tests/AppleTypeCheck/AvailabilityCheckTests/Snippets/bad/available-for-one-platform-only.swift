// `@available(iOS 18, *)` says nothing of macOS: there the scope is still macOS 14, in a
// computed property, a subscript and an extension.
// expect: macOS 14.0] 'CLMonitor.Event.accuracyLimited' is only available in macOS 15
// expect: macOS 14.0] 'CLMonitor.Event.conditionUnsupported' is only available in macOS 15
// expect: macOS 14.0] 'CLMonitor.Event.authorizationDenied' is only available in macOS 15
import CoreLocation

@available(iOS 17, macOS 14, *)
struct EventView {
    let event: CLMonitor.Event

    @available(iOS 18, *)
    var limited: Bool { event.accuracyLimited }

    @available(iOS 18, *)
    subscript(flag: Int) -> Bool { event.conditionUnsupported }
}

@available(iOS 18, *)
extension EventView {
    var denied: Bool { event.authorizationDenied }
}
