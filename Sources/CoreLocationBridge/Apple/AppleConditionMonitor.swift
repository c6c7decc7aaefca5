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
/// - **One `CLMonitor` per name in the process**: a second `CLMonitor(name)` while the first
///   lives crashes ("Monitor named … is already in use"), so every ``AppleMonitorService``
///   shares one registry and hands out the monitor already open; its ``AppleConditionMonitor/events``
///   go to the newest reader.
/// - **No prompt**: on iOS 18 and later it holds a `CLServiceSession` (macOS has none), by
///   default one that asks for no authorisation (`.none`): the app asks when the user turns the
///   feature on (docs/ios.md). Pass `.always` once the app has asked, to keep monitoring in the
///   background.
@available(iOS 17, macOS 14, *)
public final class AppleMonitorService: SystemMonitorService {
    /// The authorisation a held `CLServiceSession` asks for.
    public enum SessionAuthorization: Sendable {
        /// No session (the app holds its own).
        case noSession
        /// A session that asks for nothing (`CLServiceSession(authorization: .none)`).
        case none
        /// A session that asks for "when in use" (prompts if the user was never asked).
        case whenInUse
        /// A session that asks for "Always" (prompts if the user was never asked).
        case always
    }

    private let session: (any Sendable)?

    public init(session authorization: SessionAuthorization = .none) {
        #if os(macOS)
        session = nil
        #else
        if #available(iOS 18, *) {
            session = Self.makeSession(authorization)
        } else {
            session = nil
        }
        #endif
    }

    #if !os(macOS)
    @available(iOS 18, *)
    private static func makeSession(_ authorization: SessionAuthorization) -> (any Sendable)? {
        switch authorization {
        case .noSession: nil
        case .none: CLServiceSession(authorization: .none)
        case .whenInUse: CLServiceSession(authorization: .whenInUse)
        case .always: CLServiceSession(authorization: .always)
        }
    }
    #endif

    public func openMonitor(named name: String) async -> any SystemConditionMonitor {
        await MonitorRegistry.shared.monitor(named: name)
    }
}

/// The process's `CLMonitor`s by name: each name is opened once, for the life of the process.
@available(iOS 17, macOS 14, *)
actor MonitorRegistry {
    static let shared = MonitorRegistry()
    private var open: [String: AppleConditionMonitor] = [:]

    func monitor(named name: String) async -> AppleConditionMonitor {
        if let monitor = open[name] { return monitor }
        let monitor = AppleConditionMonitor(await CLMonitor(name))
        open[name] = monitor
        return monitor
    }
}

/// One `CLMonitor`: each method is the Apple call it names; its `events` are relayed, in
/// order, as ``SystemMonitorEvent``s by a task that lives as long as this object, to the
/// newest reader of ``events`` (``EventHandoff``).
@available(iOS 17, macOS 14, *)
public final class AppleConditionMonitor: SystemConditionMonitor {
    /// The Core Location monitor.
    public let monitor: CLMonitor
    private let handoff = EventHandoff<SystemMonitorEvent>()
    private let relay: Task<Void, Never>

    public init(_ monitor: CLMonitor) {
        self.monitor = monitor
        let handoff = self.handoff
        relay = Task {
            do {
                for try await event in await monitor.events { handoff.yield(SystemMonitorEvent(event)) }
            } catch {}
            handoff.finish()
        }
    }

    deinit { relay.cancel() }

    public var events: AsyncStream<SystemMonitorEvent> { handoff.stream() }

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
        if #available(iOS 18, macOS 15, *) { flags = DiagnosticFlags(diagnosticsOf: event) }
        self.init(identifier: event.identifier, state: MonitorState(event.state), date: event.date, diagnostics: flags)
    }
}

@available(iOS 18, macOS 15, *)
extension DiagnosticFlags {
    /// The diagnostics Core Location attaches to an event (iOS 18, macOS 15; none before).
    init(diagnosticsOf event: CLMonitor.Event) {
        self = []
        if event.accuracyLimited { insert(.accuracyLimited) }
        if event.authorizationDenied { insert(.authorizationDenied) }
        if event.authorizationDeniedGlobally { insert(.authorizationDeniedGlobally) }
        if event.authorizationRestricted { insert(.authorizationRestricted) }
        if event.authorizationRequestInProgress { insert(.authorizationRequestInProgress) }
        if event.insufficientlyInUse { insert(.insufficientlyInUse) }
        if event.serviceSessionRequired { insert(.serviceSessionRequired) }
        if event.conditionLimitExceeded { insert(.conditionLimitExceeded) }
        if event.conditionUnsupported { insert(.conditionUnsupported) }
        if event.persistenceUnavailable { insert(.persistenceUnavailable) }
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
