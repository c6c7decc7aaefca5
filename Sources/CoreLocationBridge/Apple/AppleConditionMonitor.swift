#if canImport(CoreLocation)
import CoreLocation
import Foundation
import Geodesy
import RegionMonitoring
#if APPLE_TYPECHECK
import CoreLocationBridge // Tests/AppleTypeCheck compiles this file in a module of its own
#endif

/// Core Location's `CLMonitor`s as a ``SystemMonitorService`` (iOS 17, macOS 14):
/// ``CoreLocationMonitorBackend`` on top of it runs ``Monitor`` on a real device.
///
/// ```swift
/// let backend = CoreLocationMonitorBackend(service: AppleMonitorService())
/// let monitor = try await Monitor("shops", backend: backend)
/// ```
///
/// On iOS 18 and later it holds a `CLServiceSession` asking for "Always" while it lives, the
/// session Core Location wants for monitoring in the background (macOS has no service sessions).
@available(iOS 17, macOS 14, *)
public final class AppleMonitorService: SystemMonitorService {
    private let session: (any Sendable)?

    /// - Parameter holdsServiceSession: `false` when the app manages its own `CLServiceSession`.
    public init(holdsServiceSession: Bool = true) {
        #if !os(macOS)
        if holdsServiceSession, #available(iOS 18, *) {
            session = CLServiceSession(authorization: .always)
        } else {
            session = nil
        }
        #else
        session = nil
        #endif
    }

    public func openMonitor(named name: String) async -> any SystemConditionMonitor {
        AppleConditionMonitor(await CLMonitor(name))
    }
}

/// One `CLMonitor`: each method is the Apple call it names; its `events` are relayed, in
/// order, as ``SystemMonitorEvent``s by a task that lives as long as this object.
@available(iOS 17, macOS 14, *)
public final class AppleConditionMonitor: SystemConditionMonitor {
    /// The Core Location monitor.
    public let monitor: CLMonitor
    public let events: AsyncStream<SystemMonitorEvent>
    private let relay: Task<Void, Never>

    public init(_ monitor: CLMonitor) {
        self.monitor = monitor
        let (stream, continuation) = AsyncStream.makeStream(of: SystemMonitorEvent.self, bufferingPolicy: .unbounded)
        events = stream
        relay = Task {
            do {
                for try await event in await monitor.events { continuation.yield(SystemMonitorEvent(event)) }
            } catch {}
            continuation.finish()
        }
    }

    deinit { relay.cancel() }

    public func add(_ condition: SystemCondition, identifier: String, assuming state: MonitorState) async {
        let center = CLLocationCoordinate2D(latitude: condition.center.latitude, longitude: condition.center.longitude)
        await monitor.add(
            CLMonitor.CircularGeographicCondition(center: center, radius: condition.radius),
            identifier: identifier, assuming: CLMonitor.Event.State(state))
    }

    public func remove(_ identifier: String) async { await monitor.remove(identifier) }

    public var identifiers: [String] { get async { await monitor.identifiers } }

    public func record(for identifier: String) async -> SystemMonitorRecord? {
        guard let record = await monitor.record(for: identifier) else { return nil }
        let circle = record.condition as? CLMonitor.CircularGeographicCondition
        let condition = circle.flatMap { c in
            (try? Coordinate(latitude: c.center.latitude, longitude: c.center.longitude)).map {
                SystemCondition(center: $0, radius: c.radius)
            }
        }
        return SystemMonitorRecord(condition: condition, lastEvent: SystemMonitorEvent(record.lastEvent))
    }
}

@available(iOS 17, macOS 14, *)
extension SystemMonitorEvent {
    /// The event Core Location reported.
    public init(_ event: CLMonitor.Event) {
        var flags: DiagnosticFlags = []
        if event.accuracyLimited { flags.insert(.accuracyLimited) }
        if event.authorizationDenied { flags.insert(.authorizationDenied) }
        if event.authorizationDeniedGlobally { flags.insert(.authorizationDeniedGlobally) }
        if event.authorizationRestricted { flags.insert(.authorizationRestricted) }
        if event.insufficientlyInUse { flags.insert(.insufficientlyInUse) }
        if event.conditionLimitExceeded { flags.insert(.conditionLimitExceeded) }
        if event.conditionUnsupported { flags.insert(.conditionUnsupported) }
        if event.persistenceUnavailable { flags.insert(.persistenceUnavailable) }
        self.init(identifier: event.identifier, state: MonitorState(event.state), date: event.date, diagnostics: flags)
    }
}

@available(iOS 17, macOS 14, *)
extension MonitorState {
    /// The package's state for Core Location's (`unmonitored` for any state it does not know).
    public init(_ state: CLMonitor.Event.State) {
        switch state {
        case .unknown: self = .unknown
        case .satisfied: self = .satisfied
        case .unsatisfied: self = .unsatisfied
        default: self = .unmonitored
        }
    }
}

@available(iOS 17, macOS 14, *)
extension CLMonitor.Event.State {
    /// Core Location's state for an assumed one (`unmonitored` cannot be assumed: `unknown`).
    init(_ state: MonitorState) {
        switch state {
        case .satisfied: self = .satisfied
        case .unsatisfied: self = .unsatisfied
        case .unknown, .unmonitored: self = .unknown
        }
    }
}
#endif
