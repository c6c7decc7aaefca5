import CoreLocationBridge
import RegionMonitoring
import RegionPlanner

/// The app's stack on the simulated backend: proves the three products build without the
/// `Server` trait.
public func makeTestStack() async -> LocationManager {
    await LocationManager(backend: FakeCoreLocationBackendFactory.make())
}

enum FakeCoreLocationBackendFactory {
    static func make() async -> CoreLocationManagerBackend {
        await CoreLocationManagerBackend(system: FakeCoreLocation(authorization: .authorizedAlways))
    }
}
