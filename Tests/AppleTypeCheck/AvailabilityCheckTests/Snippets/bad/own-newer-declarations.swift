// The package's own `@available` declarations are checked as Apple's: a function, a type and an
// enum case and a property wrapper marked iOS 18, used in an iOS 17 scope, and a function
// unavailable on macOS.
// expect: iOS 17.0] 'NewThing' is only available in iOS 18
// expect: iOS 17.0] 'Mode.live' is only available in iOS 18
// expect: iOS 17.0] 'limited' is only available in iOS 18
// expect: macOS 14.0] 'limited' is only available in macOS 15
// expect: macOS 14.0] 'phoneOnly' is unavailable in macOS
// expect: iOS 17.0] 'Clamped' is only available in iOS 18
import CoreLocation

@available(iOS 18, macOS 15, *)
func limited(_ event: CLMonitor.Event) -> Bool { event.accuracyLimited }

@available(iOS 18, macOS 15, *)
struct NewThing { var count = 1 }

enum Mode {
    case test
    @available(iOS 18, *)
    case live
}

@available(macOS, unavailable)
func phoneOnly() {}

@available(iOS 18, macOS 15, *)
@propertyWrapper
struct Clamped {
    var wrappedValue: Int
}

struct Settings {
    @Clamped var radius: Int
}

@available(iOS 17, macOS 14, *)
func use(_ event: CLMonitor.Event, _ mode: Mode) -> Bool {
    _ = NewThing()
    phoneOnly()
    return mode == .live || limited(event)
}
