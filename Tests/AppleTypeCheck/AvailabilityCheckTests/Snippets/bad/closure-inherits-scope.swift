// A closure runs in the scope it is written in.
// expect: iOS 17.0] 'CLMonitor.Event.insufficientlyInUse' is only available in iOS 18
import CoreLocation

@available(iOS 17, macOS 14, *)
func anyInsufficient(_ events: [CLMonitor.Event]) -> Bool {
    events.contains { $0.insufficientlyInUse }
}
