// platforms: macOS=14.0
// A macOS-only package reading macOS 15 API under its check, iPhone-only API under `#if os(iOS)`.
import CoreLocation

func read(_ event: CLMonitor.Event, _ status: CLAuthorizationStatus) -> Bool {
    #if os(iOS)
    if status == .authorizedWhenInUse { return true }
    #endif
    if #available(macOS 15, *) { return event.accuracyLimited }
    return false
}
