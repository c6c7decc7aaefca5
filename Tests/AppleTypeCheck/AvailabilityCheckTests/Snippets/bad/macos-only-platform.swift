// platforms: macOS=14.0
// A macOS-only package: an iPhone-only property and case fail, an iOS check changes nothing.
// expect: macOS 14.0] 'CLLocationManager.showsBackgroundLocationIndicator' is unavailable in macOS
// expect: macOS 14.0] 'CLAuthorizationStatus.authorizedWhenInUse' is unavailable in macOS
import CoreLocation

func configure(_ manager: CLLocationManager) -> Bool {
    if #available(iOS 11, *) {
        manager.showsBackgroundLocationIndicator = true
    }
    return manager.authorizationStatus == .authorizedWhenInUse
}
