// The package's own newer declarations, used only where they exist; an enum with a newer case
// (its synthesized `==` is not a use).
import CoreLocation

@available(iOS 18, macOS 15, *)
func limited(_ event: CLMonitor.Event) -> Bool { event.accuracyLimited }

@available(iOS 18, macOS 15, *)
struct NewThing {
    var count = 1
    func twice() -> Int { count * 2 }
}

@available(iOS 18, macOS 15, *)
extension NewThing {
    func quadruple() -> Int { twice() * 2 }
}

enum Mode {
    case test
    @available(iOS 18, macOS 15, *)
    case live
}

@available(iOS 17, macOS 14, *)
func use(_ event: CLMonitor.Event, _ mode: Mode) -> Bool {
    guard #available(iOS 18, macOS 15, *) else { return mode == .test }
    return NewThing().quadruple() > 0 && limited(event) && mode == .live
}
