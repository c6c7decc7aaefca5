// An enum case's associated value of a newer type needs the enum to be as new.
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

enum Holder {
    case session(CLServiceSession)
    case none
}
