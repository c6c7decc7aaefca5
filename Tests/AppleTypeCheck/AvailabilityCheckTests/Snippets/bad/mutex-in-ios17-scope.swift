// Synchronization's Mutex is iOS 18 / macOS 15.
// Xcode: 'Mutex' is only available in iOS 18.0 or newer
// expect: iOS 17.0] 'Mutex' is only available in iOS 18.0 or newer
// expect: macOS 14.0] 'Mutex.init(_:)' is only available in macOS 15.0 or newer
import Synchronization

final class Counter: Sendable {
    let count = Mutex(0)
}
