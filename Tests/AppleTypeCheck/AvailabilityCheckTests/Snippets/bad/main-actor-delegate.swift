// CLLocationManagerDelegate's methods are nonisolated: a @MainActor class cannot satisfy them
// with main-actor methods in Swift 6.
// Xcode: conformance of 'Watcher' to protocol 'CLLocationManagerDelegate' crosses into main actor-isolated code and can cause data races
// expect: [Swift 6] conformance of 'Watcher' to protocol 'CLLocationManagerDelegate' crosses into main actor-isolated code
import CoreLocation
import Foundation

@MainActor
final class Watcher: NSObject, CLLocationManagerDelegate {
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {}
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {}
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
}
