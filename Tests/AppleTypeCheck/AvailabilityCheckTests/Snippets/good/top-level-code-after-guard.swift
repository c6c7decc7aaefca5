// Top-level code (a script, or a main.swift) runs in order: a `guard #available` there covers
// the statements after it.
import CoreLocation

func firstEvent() -> CLMonitor.Event? { nil }

guard #available(iOS 18, macOS 15, *) else { fatalError("needs iOS 18") }
print(firstEvent()?.accuracyLimited ?? false)
