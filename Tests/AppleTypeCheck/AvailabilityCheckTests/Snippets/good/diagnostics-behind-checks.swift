// The same uses, each behind a check that covers it.
import CoreLocation

@available(iOS 17, macOS 14, *)
func flags(of event: CLMonitor.Event) -> [Bool] {
    guard #available(iOS 18, macOS 15, *) else { return [] }
    return [event.accuracyLimited, event.conditionLimitExceeded, event.serviceSessionRequired]
}

@available(iOS 17, macOS 14, *)
func limitReached(_ event: CLMonitor.Event) -> Bool {
    if #available(iOS 18, macOS 15, *) { return event.conditionLimitExceeded }
    return false
}

@available(iOS 18, macOS 15, *)
func anyInsufficient(_ events: [CLMonitor.Event]) -> Bool { events.contains { $0.insufficientlyInUse } }

@available(iOS 17, macOS 14, *)
func needsSession(_ event: CLMonitor.Event) -> Bool {
    if #unavailable(iOS 18, macOS 15) { return false }
    return false
}
