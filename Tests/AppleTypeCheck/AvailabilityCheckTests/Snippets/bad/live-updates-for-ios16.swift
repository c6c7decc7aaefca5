// platforms: iOS=16.0 macOS=13.0
// CLLocationUpdate and its liveUpdates() are iOS 17 / macOS 14.
// Xcode: 'CLLocationUpdate' is only available in iOS 17.0 or newer
// expect: iOS 16.0] 'CLLocationUpdate' is only available in iOS 17.0 or newer
import CoreLocation

func firstFix() async throws -> CLLocation? {
    for try await update in CLLocationUpdate.liveUpdates() { return update.location }
    return nil
}
