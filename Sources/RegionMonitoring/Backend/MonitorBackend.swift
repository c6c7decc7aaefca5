import Foundation
import Geofencing

/// The system service behind a ``Monitor``: what Core Location's `CLMonitor` does for an app.
/// ``SimulatedDevice`` is one backend; `CoreLocationBridge` provides one on a real `CLMonitor`
/// (and a fake of it for tests).
///
/// A monitor instance is identified by its name and a token the backend hands out when it is
/// opened; calls presenting the token of a closed instance do nothing (a relaunched app's new
/// instance is not disturbed by an old one). The backend keeps conditions and undelivered
/// events across instances, as the system does across launches.
public protocol MonitorBackend: AnyObject, Sendable {
    /// Opens monitor `name`, attaches `continuation` for its events and yields the events that
    /// happened while it was closed. Returns the instance's token.
    func openMonitor(
        _ name: String, continuation: AsyncStream<MonitorEvent>.Continuation
    ) async throws(MonitoringError) -> UInt64
    /// Adds or replaces condition `identifier` of monitor `name`.
    func addCondition(
        _ condition: MonitorCondition, identifier: String, assuming: MonitorState,
        monitor name: String, token: UInt64) async
    /// Removes condition `identifier` of monitor `name`.
    func removeCondition(_ identifier: String, monitor name: String, token: UInt64) async
    /// The condition identifiers of monitor `name`, in the order added.
    func identifiers(of name: String) async -> [String]
    /// The condition and last event of `identifier` in monitor `name`.
    func record(_ identifier: String, of name: String) async -> MonitorRecord?
    /// The instance lets go of the monitor: its stream ends, monitoring goes on.
    func closeMonitor(_ name: String, token: UInt64) async
    /// Ends monitor `name` for good: conditions stop, stored state is deleted, the stream ends.
    func invalidateMonitor(_ name: String, token: UInt64) async
    /// How many regions the app may monitor at once.
    var regionLimit: Int { get async }
    /// The longest a condition event may come after the crossing was confirmed (seconds): Core
    /// Location states 3–5 minutes; 0 by default (the simulated device). `MonitorSlotMonitor`
    /// passes it to the planner as its event latency.
    var eventLatency: TimeInterval { get }
    /// How many regions the app monitors now (all monitors and location-manager regions).
    var monitoredRegionCount: Int { get async }
    /// Installs (or clears) a synchronous tap that sees each event delivered to monitor `name`
    /// as a transition (condition identifier as `regionID`, with the fix that confirmed it):
    /// what ``MonitorSlotMonitor`` hands to a planner.
    func setTransitionTap(_ tap: (@Sendable (TransitionEvent) -> Void)?, monitor name: String) async
    /// Installs (or clears) a tap that sees each condition of monitor `name` the system stopped
    /// monitoring after it was added (an `.unmonitored` event, e.g. `conditionLimitExceeded`
    /// reported late): what ``MonitorSlotMonitor`` reports as a failure to the planner.
    func setRefusalTap(_ tap: (@Sendable (MonitorEvent) -> Void)?, monitor name: String) async
}

extension MonitorBackend {
    /// Backends that refuse conditions only when they are added have no late refusals.
    public func setRefusalTap(_ tap: (@Sendable (MonitorEvent) -> Void)?, monitor name: String) async {}
}

extension MonitorBackend {
    /// Events as they are confirmed.
    public var eventLatency: TimeInterval { 0 }
}
