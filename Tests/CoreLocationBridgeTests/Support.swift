import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

@testable import CoreLocationBridge

let t0 = Date(timeIntervalSince1970: 1_700_000_000)
let lyon = Coordinate(uncheckedLatitude: 45.7640, longitude: 4.8357)

/// The point `north` / `east` metres from `origin`.
func offset(_ north: Double, _ east: Double = 0, from origin: Coordinate = lyon) -> Coordinate {
    LocalProjection(origin: origin).unproject(east: east, north: north)
}

func fix(_ seconds: Double, _ c: Coordinate, accuracy: Double = 5) -> LocationFix {
    LocationFix(
        subject: "device", coordinate: c, horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(seconds))
}

/// Fixes every 5 s at `place` from `from` through `through` seconds.
func stay(at place: Coordinate, from: Double, through: Double) -> [LocationFix] {
    stride(from: from, through: through, by: 5).map { fix($0, place) }
}

func circle(
    _ id: String, north: Double = 0, radius: Double = 300, entry: Bool = true, exit: Bool = true
) -> CircularRegion {
    CircularRegion(center: offset(north), radius: radius, identifier: id, notifyOnEntry: entry, notifyOnExit: exit)
}

/// A Core Location stack as an app builds it at launch: the system (fake), the backend, a
/// manager with a recording delegate.
struct CoreLocationApp {
    let system: FakeCoreLocation
    let backend: CoreLocationManagerBackend
    let manager: LocationManager
    let recorder: Recorder

    static func launch(
        on system: FakeCoreLocation, freshness: TimeInterval = .infinity,
        now: @escaping @Sendable () -> Date = { t0 }
    ) async -> CoreLocationApp {
        let backend = await CoreLocationManagerBackend(system: system, locationFreshness: freshness, now: now)
        let manager = await LocationManager(backend: backend)
        let recorder = Recorder()
        await manager.setDelegate(recorder)
        return CoreLocationApp(system: system, backend: backend, manager: manager, recorder: recorder)
    }

    /// Feeds fixes to the system, then waits until the backend has handled what they caused.
    func drive(_ fixes: [LocationFix]) async throws {
        for f in fixes { try await system.move(to: f) }
        await backend.settle()
    }
}

/// A delegate that records every call, in order.
final class Recorder: LocationManagerDelegate, @unchecked Sendable {
    enum Call: Hashable {
        case enter(String)
        case exit(String)
        case state(String, RegionState)
        case start(String)
        case fail(String?, RegionMonitoringError)
        case auth(AuthorizationStatus)
    }
    private let lock = NSLock()
    private var _calls: [Call] = []
    var calls: [Call] { lock.withLock { _calls } }
    func take() -> [Call] {
        lock.withLock {
            defer { _calls = [] }
            return _calls
        }
    }
    private func add(_ c: Call) { lock.withLock { _calls.append(c) } }

    func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion) {
        add(.enter(region.identifier))
    }
    func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion) {
        add(.exit(region.identifier))
    }
    func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: MonitoredRegion)
    {
        add(.state(region.identifier, state))
    }
    func locationManager(_ manager: LocationManager, didStartMonitoringFor region: MonitoredRegion) {
        add(.start(region.identifier))
    }
    func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: MonitoredRegion?,
        withError error: RegionMonitoringError
    ) {
        add(.fail(region?.identifier, error))
    }
    func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus) {
        add(.auth(status))
    }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date
    init(_ date: Date) { self.date = date }
    var now: Date { lock.withLock { date } }
    func set(_ d: Date) { lock.withLock { date = d } }
}

/// Sleeps that end only when the test moves time on (``advance(by:)``): timeouts tested
/// without waiting.
actor ManualSleeper {
    private var now: TimeInterval = 0
    private var sleepers: [(due: TimeInterval, continuation: CheckedContinuation<Void, Never>)] = []

    /// How many sleeps are waiting.
    var waiting: Int { sleepers.count }

    func sleep(_ seconds: TimeInterval) async {
        await withCheckedContinuation { sleepers.append((now + seconds, $0)) }
    }

    /// Moves time on; every sleep due by then ends.
    func advance(by seconds: TimeInterval) {
        now += seconds
        let due = sleepers.filter { $0.due <= now }
        sleepers.removeAll { $0.due <= now }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once `count` sleeps wait (bounded: gives up after many turns).
    func waitForSleepers(_ count: Int) async {
        for _ in 0..<10_000 where sleepers.count < count { await Task.yield() }
    }
}

/// Yields until `condition` holds, at most `turns` times; whether it held.
func eventually(turns: Int = 20_000, _ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<turns {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}
