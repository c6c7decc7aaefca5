// A newer type only as a generic argument, after another type of the same module (the compiler
// abbreviates the module's second mention in the mangled name).
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

@available(iOS 17, macOS 14, *)
func pair(_ pairs: [String: (CLMonitor.Event, CLServiceSession)]) -> Int { pairs.count }
