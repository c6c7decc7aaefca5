// A delegate whose methods stay nonisolated and hop to the main actor with Sendable values
// only, an exhaustive switch with `@unknown default`, and `for await` over an AsyncStream
// (the compiler calls `next(isolation:)` only where the runtime has it).
import CoreLocation
import Foundation

@MainActor func entered(_ identifier: String) {}

final class Watcher: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
    func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
        let identifier = region.identifier
        Task { @MainActor in entered(identifier) }
    }
    func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didDetermineState state: CLRegionState, for region: CLRegion) {}
    func locationManager(_ manager: CLLocationManager, didStartMonitoringFor region: CLRegion) {}
    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {}
    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {}
    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        switch manager.authorizationStatus {
        case .authorizedAlways: break
        case .notDetermined, .restricted, .denied: break
        #if os(iOS)
        case .authorizedWhenInUse: break
        #endif
        @unknown default: break
        }
    }
    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
}

func drain(_ stream: AsyncStream<Int>) async -> Int {
    var total = 0
    for await value in stream { total += value }
    return total
}
