// CLLocationUpdate.liveUpdates() and CLBackgroundActivitySession in an iOS 17 / macOS 14 app,
// and an override as available as what it overrides.
import CoreLocation

func firstFix() async throws -> CLLocation? {
    #if os(iOS)
    let session = CLBackgroundActivitySession() // iOS only: unavailable on macOS
    defer { session.invalidate() }
    #endif
    for try await update in CLLocationUpdate.liveUpdates() {
        if let location = update.location { return location }
    }
    return nil
}

open class Base {
    @available(iOS 17.0, macOS 14.0, *)
    open func start() {}
}

final class Derived: Base {
    override func start() {}
}
