// Extending a type needs the type: an empty extension of an iOS 18 class fails in Xcode.
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
// expect: macOS 14.0] 'CLServiceSession' is unavailable in macOS
import CoreLocation

extension CLServiceSession {}
