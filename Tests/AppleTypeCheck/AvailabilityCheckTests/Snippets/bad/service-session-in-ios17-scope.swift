// CLServiceSession is iOS 18: creating one at the package's minimum needs a check.
// expect: iOS 17.0] 'CLServiceSession' is only available in iOS 18
import CoreLocation

@available(iOS 17, *)
func holdSession() -> Any { CLServiceSession(authorization: .always) }
