// An enum case with associated values cannot be newer than its enum (Xcode: "enum cases with
// associated values cannot be marked potentially unavailable"); unavailable on macOS is allowed.
// expect: iOS 17.0] 'session': enum cases with associated values cannot be marked potentially unavailable
import CoreLocation

enum Holder {
    @available(iOS 18, *)
    @available(macOS, unavailable)
    case session(CLServiceSession)
    case none
}
