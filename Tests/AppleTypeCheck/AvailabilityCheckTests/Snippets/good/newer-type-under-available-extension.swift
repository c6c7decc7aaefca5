// An extension marked as new as the type it extends, and uses inside an extension so marked.
import CoreLocation

@available(iOS 18, *)
@available(macOS, unavailable)
extension CLServiceSession {
    func end() { invalidate() }
}

@available(iOS 17, macOS 14, *)
struct EventView {
    let event: CLMonitor.Event
}

@available(iOS 18, macOS 15, *)
extension EventView {
    var limited: Bool { event.accuracyLimited }
    subscript(flag: Int) -> Bool { event.conditionUnsupported }
    func makeKeyPath() -> KeyPath<CLMonitor.Event, Bool> { \CLMonitor.Event.authorizationDenied }
}
