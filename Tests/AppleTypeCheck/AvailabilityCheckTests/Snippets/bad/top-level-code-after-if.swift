// Top-level code: an `if #available` covers its branch, not the statements after it.
// expect: top-level-code-after-if.swift:10:
// expect: iOS 17.0] 'CLMonitor.Event.accuracyLimited' is only available in iOS 18
import CoreLocation

@available(iOS 17, macOS 14, *)
func firstEvent() -> CLMonitor.Event? { nil }

if #available(iOS 18, macOS 15, *) { print("iOS 18") }
print(firstEvent()?.accuracyLimited ?? false)
