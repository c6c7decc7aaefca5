// A key path names the property as a call would.
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited' is only available in iOS 18
// expect: macOS 14.0] 'CLMonitor.Event.accuracyLimited' is only available in macOS 15
import CoreLocation

@available(iOS 17, macOS 14, *)
func limited(_ events: [CLMonitor.Event]) -> [Bool] {
    events.map(\CLMonitor.Event.accuracyLimited)
}
