// The mistake that kept the bridge from compiling: CLMonitor.Event's diagnostics are iOS 18 /
// macOS 15, read in a scope that only guarantees iOS 17 / macOS 14.
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited' is only available in iOS 18
// expect: macOS 14.0] 'CLMonitor.Event.conditionLimitExceeded' is only available in macOS 15
import CoreLocation

@available(iOS 17, macOS 14, *)
func flags(of event: CLMonitor.Event) -> [Bool] {
    [event.accuracyLimited, event.conditionLimitExceeded]
}
