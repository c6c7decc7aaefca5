import Foundation
import Geodesy
import RegionMonitoring

/// A circular condition as Core Location's `CLMonitor.CircularGeographicCondition` holds it
/// (the only condition kind the bridge hands to the system).
public struct SystemCondition: Sendable, Hashable {
    public var center: Coordinate
    /// Metres.
    public var radius: Double
    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
    }
}

/// A `CLMonitor.Event` in platform-neutral values: the same four values as the events a
/// ``Monitor`` reports (`date` is when the system says the change happened).
public typealias SystemMonitorEvent = MonitorEvent

/// A `CLMonitor.Record`: the condition (`nil` when it is not a circle) and its last event.
public struct SystemMonitorRecord: Sendable, Hashable {
    public var condition: SystemCondition?
    public var lastEvent: SystemMonitorEvent
    public init(condition: SystemCondition?, lastEvent: SystemMonitorEvent) {
        self.condition = condition
        self.lastEvent = lastEvent
    }
}

/// One Core Location `CLMonitor`, in platform-neutral values: `AppleConditionMonitor` on
/// Apple platforms, ``FakeConditionMonitors`` in tests.
public protocol SystemConditionMonitor: AnyObject, Sendable {
    /// `events`: every event, in order, for as long as this instance lives.
    var events: AsyncStream<SystemMonitorEvent> { get }
    /// `add(_:identifier:assuming:)` with a `CLMonitor.CircularGeographicCondition`.
    func add(_ condition: SystemCondition, identifier: String, assuming state: MonitorState) async
    /// `remove(_:)`.
    func remove(_ identifier: String) async
    /// `identifiers`.
    var identifiers: [String] { get async }
    /// `record(for:)`.
    func record(for identifier: String) async -> SystemMonitorRecord?
}

/// Opens Core Location monitors by name (`CLMonitor(_:)`).
public protocol SystemMonitorService: AnyObject, Sendable {
    /// The monitor named `name` (the system keeps its conditions across launches).
    func openMonitor(named name: String) async -> any SystemConditionMonitor
}
