import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionMonitoring

let t0 = Date(timeIntervalSince1970: 1_700_000_000)
let paris = Coordinate(uncheckedLatitude: 48.8566, longitude: 2.3522)

/// The point `north` / `east` metres from `origin`.
func offset(_ north: Double, _ east: Double = 0, from origin: Coordinate = paris) -> Coordinate {
    LocalProjection(origin: origin).unproject(east: east, north: north)
}

func fix(_ seconds: Double, _ c: Coordinate, accuracy: Double = 5) -> LocationFix {
    LocationFix(
        subject: "device", coordinate: c, horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(seconds))
}

/// Fixes every 5 s: outside (1 km north of `origin`) from `start − 20` through `start + 5`,
/// then at `origin` from `start + 10` through `start + 40`. With the coreLocation policy and a
/// 500 m region, a fresh region's outside state is held (20 s, rule 36) at `start`, and the
/// entry is confirmed 20 s after the first inside fix, at `start + 30`.
func walkIn(start: Double = 0, origin: Coordinate = paris) -> [LocationFix] {
    stride(from: start - 20, through: start + 5, by: 5).map { fix($0, offset(1_000, from: origin)) }
        + stride(from: start + 10, through: start + 40, by: 5).map { fix($0, origin) }
}

/// Fixes every 5 s at `place` from `from` through `through` seconds.
func stay(at place: Coordinate, from: Double, through: Double, accuracy: Double = 5) -> [LocationFix] {
    stride(from: from, through: through, by: 5).map { fix($0, place, accuracy: accuracy) }
}

/// Fixes every 5 s 1 km north of `origin` for 35 s: an exit after `walkIn`.
func walkOut(start: Double = 45, origin: Coordinate = paris) -> [LocationFix] {
    stride(from: start, through: start + 35, by: 5).map { fix($0, offset(1_000, from: origin)) }
}

func region(
    _ id: String, at c: Coordinate = paris, radius: Double = 500,
    entry: Bool = true, exit: Bool = true
) -> CircularRegion {
    CircularRegion(center: c, radius: radius, identifier: id, notifyOnEntry: entry, notifyOnExit: exit)
}

func makeDevice(store: MonitorStore? = nil, _ configure: (inout DeviceSettings) -> Void = { _ in }) -> SimulatedDevice {
    var s = DeviceSettings()
    s.authorization = .authorizedAlways
    configure(&s)
    return SimulatedDevice(settings: s, start: t0, store: store)
}

extension SimulatedDevice {
    func feed(_ fixes: [LocationFix]) throws {
        for f in fixes { try receive(.fix(f)) }
    }
}

/// A delegate that records every call, in order.
final class Recorder: LocationManagerDelegate, @unchecked Sendable {
    enum Call: Equatable {
        case enter(String)
        case exit(String)
        case state(String, RegionState)
        case start(String)
        case fail(String?, RegionMonitoringError)
        case auth(AuthorizationStatus)
    }
    private let lock = NSLock()
    private var log: [Call] = []
    var calls: [Call] { lock.withLock { log } }
    private func add(_ c: Call) { lock.withLock { log.append(c) } }

    var enters: [String] { calls.compactMap { if case .enter(let id) = $0 { id } else { nil } } }
    var exits: [String] { calls.compactMap { if case .exit(let id) = $0 { id } else { nil } } }
    var failures: [Call] { calls.filter { if case .fail = $0 { true } else { false } } }
    var states: [Call] { calls.filter { if case .state = $0 { true } else { false } } }
    var starts: [String] { calls.compactMap { if case .start(let id) = $0 { id } else { nil } } }
    var authorizations: [AuthorizationStatus] { calls.compactMap { if case .auth(let s) = $0 { s } else { nil } } }

    func locationManager(_ m: LocationManager, didEnterRegion r: MonitoredRegion) { add(.enter(r.identifier)) }
    func locationManager(_ m: LocationManager, didExitRegion r: MonitoredRegion) { add(.exit(r.identifier)) }
    func locationManager(_ m: LocationManager, didDetermineState s: RegionState, for r: MonitoredRegion) {
        add(.state(r.identifier, s))
    }
    func locationManager(_ m: LocationManager, didStartMonitoringFor r: MonitoredRegion) { add(.start(r.identifier)) }
    func locationManager(
        _ m: LocationManager, monitoringDidFailFor r: MonitoredRegion?, withError e: RegionMonitoringError
    ) {
        add(.fail(r?.identifier, e))
    }
    func locationManager(_ m: LocationManager, didChangeAuthorization s: AuthorizationStatus) { add(.auth(s)) }
}

/// A manager with a fresh recorder on `device`.
func manager(on device: SimulatedDevice) async -> (LocationManager, Recorder) {
    let m = await LocationManager(device: device)
    let r = Recorder()
    await m.setDelegate(r)
    return (m, r)
}

/// The next `n` events from `iterator` (they must already be buffered or come).
func take(_ n: Int, from iterator: inout AsyncStream<MonitorEvent>.Iterator) async -> [MonitorEvent] {
    var out: [MonitorEvent] = []
    while out.count < n, let e = await iterator.next() { out.append(e) }
    return out
}

/// Everything `monitor` buffered until it is closed (closes it).
func drain(_ monitor: Monitor) async -> [MonitorEvent] {
    await monitor.close()
    var out: [MonitorEvent] = []
    for await e in monitor.events { out.append(e) }
    return out
}

func temporaryDirectory() -> URL {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("rm-tests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
    return u
}

/// The end of an app-life property run over `Monitor`s: the user unlocks and opens the app
/// (launching it when it is not running), which collects what is still waiting; returns every
/// instance's events in order, having checked that none was delivered twice or out of order.
func finishAppLifeRun(
    device: SimulatedDevice, current: Monitor?, instances: [Monitor], seed: UInt64
) async throws -> [MonitorEvent] {
    var instances = instances
    await device.unlock()
    await device.setAppState(.foreground)
    if current == nil { instances.append(try await Monitor("m", device: device)) }
    await device.setAppState(.terminated)
    var delivered: [MonitorEvent] = []
    for m in instances { for await e in m.events { delivered.append(e) } }
    #expect(Set(delivered.map(\.date)).count == delivered.count, "no event delivered twice (seed \(seed))")
    #expect(delivered.map(\.date) == delivered.map(\.date).sorted(), "in order (seed \(seed))")
    return delivered
}
