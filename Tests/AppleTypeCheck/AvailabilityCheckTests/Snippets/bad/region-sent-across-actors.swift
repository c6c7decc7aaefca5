// CLCircularRegion is not Sendable: sending one to the main actor while keeping it is a data
// race, found by region-based isolation in SIL.
// Xcode: sending 'region' risks causing data races
// expect: [Swift 6] sending 'region' risks causing data races
import CoreLocation

@MainActor func show(_ region: CLCircularRegion) {}

func report(_ region: CLCircularRegion) async {
    await show(region)
    print(region.radius)
}
