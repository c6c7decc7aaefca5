// platforms: iOS=16.0
// CLBackgroundActivitySession is iOS 17.
// Xcode: 'CLBackgroundActivitySession' is only available in iOS 17.0 or newer
// expect: iOS 16.0] 'CLBackgroundActivitySession' is only available in iOS 17.0 or newer
import CoreLocation

func keepGoing() -> AnyObject { CLBackgroundActivitySession() }
