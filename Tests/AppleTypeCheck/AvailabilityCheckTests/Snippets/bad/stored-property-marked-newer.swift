// `@available` on a stored property does not make an iOS 18 type storable in an iOS 17 class
// (Xcode: "stored properties cannot be marked potentially unavailable with '@available'"), and a
// stored property cannot be unavailable on macOS in a class that is not; lazy and wrapped
// properties are stored too.
// expect: iOS 17.0] 'session': stored properties cannot be marked potentially unavailable
// expect: macOS 14.0] 'session': stored properties cannot be marked unavailable
// expect: iOS 17.0] 'lazySession': stored properties cannot be marked potentially unavailable
// expect: iOS 17.0] 'wrapped': stored properties cannot be marked potentially unavailable
import CoreLocation

@propertyWrapper
struct Clamped {
    var wrappedValue: Int
}

final class SessionHolder {
    @available(iOS 18, *)
    @available(macOS, unavailable)
    var session: CLServiceSession?

    @available(iOS 18, macOS 15, *)
    lazy var lazySession: Int = 0

    @available(iOS 18, macOS 15, *)
    @Clamped var wrapped: Int = 0
}
