// A `guard #available` in a closure covers the rest of the closure; `else if #available`
// chains, result-builder closures and nested blocks under a check are covered.
import CoreLocation

@resultBuilder
enum FlagsBuilder {
    static func buildBlock(_ flags: Bool...) -> [Bool] { flags }
}

func flags(@FlagsBuilder _ make: () -> [Bool]) -> [Bool] { make() }

@available(iOS 17, macOS 14, *)
func summaries(_ events: [CLMonitor.Event]) -> [String] {
    events.map { event in
        guard #available(iOS 18, macOS 15, *) else { return "\(event.state)" }
        let builder = flags { event.accuracyLimited }
        return "\(event.conditionUnsupported) \(builder)"
    }
}

@available(iOS 17, macOS 14, *)
func isUnmonitored(_ event: CLMonitor.Event) -> Bool {
    if #available(iOS 18, macOS 15, *) {
        return event.persistenceUnavailable
    } else if #available(iOS 17.2, macOS 14.2, *) {
        switch event.state {
        case .unmonitored: return true
        default: return false
        }
    }
    return false
}

@available(iOS 17.2, macOS 14.2, *)
func assume(_ state: CLMonitor.Event.State = .unmonitored) -> Bool { state == .unmonitored }
