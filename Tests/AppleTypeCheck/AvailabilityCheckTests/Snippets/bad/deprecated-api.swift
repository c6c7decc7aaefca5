// `.authorized` is deprecated on iOS since 8.0 (Xcode warns; warnings are errors here), not on macOS.
// expect: iOS 17.0] 'CLAuthorizationStatus.authorized' was deprecated in iOS 8.0
import CoreLocation

func isAuthorized(_ status: CLAuthorizationStatus) -> Bool { status == .authorized }
