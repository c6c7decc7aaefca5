// A closure given to a result builder runs in the scope it is written in.
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited' is only available in iOS 18
import CoreLocation

@resultBuilder
enum FlagsBuilder {
    static func buildBlock(_ flags: Bool...) -> [Bool] { flags }
}

func flags(@FlagsBuilder _ make: () -> [Bool]) -> [Bool] { make() }

@available(iOS 17, macOS 14, *)
func eventFlags(_ event: CLMonitor.Event) -> [Bool] {
    flags {
        event.state == .satisfied
        event.accuracyLimited
    }
}
