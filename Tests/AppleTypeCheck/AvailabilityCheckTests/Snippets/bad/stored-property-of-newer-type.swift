// A stored property cannot be of a type newer than its class (Xcode: "Stored properties cannot
// be marked potentially unavailable").
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

final class SessionHolder {
    var session: CLServiceSession?
}
