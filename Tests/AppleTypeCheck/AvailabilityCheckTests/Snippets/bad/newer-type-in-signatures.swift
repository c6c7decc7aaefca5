// Newer types written only in declarations: a return type, a typealias, a parameter's default.
// expect: newer-type-in-signatures.swift:8:
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
// expect: iOS 17.0] '__CLMonitoringState.unmonitored' is only available in iOS 17.2
// expect: macOS 14.0] '__CLMonitoringState.unmonitored' is only available in macOS 14.2
import CoreLocation

func makeSession() -> CLServiceSession? { nil }

typealias Session = CLServiceSession

@available(iOS 17, macOS 14, *)
func assume(_ state: CLMonitor.Event.State = .unmonitored) -> UInt { state.rawValue }
