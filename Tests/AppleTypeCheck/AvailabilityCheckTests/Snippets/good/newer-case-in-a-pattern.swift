// `.unmonitored` is iOS 17.2 / macOS 14.2, but matching it needs no check: a value can only be
// that case where the case exists (Swift's test/Sema/availability_versions.swift: "Pattern
// matching on an enum element does not require it to be definitely available"). Naming it in an
// expression does (bad/newer-type-in-signatures.swift, bad/checks-that-do-not-cover.swift).
import CoreLocation

@available(iOS 17, macOS 14, *)
func isMonitored(_ event: CLMonitor.Event) -> Bool {
    switch event.state {
    case .unmonitored: return false
    default: return true
    }
}

@available(iOS 17, macOS 14, *)
func isUnmonitored(_ state: CLMonitor.Event.State) -> Bool {
    if case .unmonitored = state { return true }
    return false
}
