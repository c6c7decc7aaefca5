import Foundation
import Geofencing

/// A region monitor with a fixed number of slots, as an app sees Core Location: register a
/// region, unregister it, ask its current state, list what it holds, and switch continuous
/// location updates on or off; transition events come out of the monitor and the owner hands
/// them to ``RegionPlanner/handle(_:)``; location updates go to ``RegionPlanner/observe(_:)``.
///
/// ```swift
/// final class MyMonitor: SlotMonitor {                     // Sendable: state behind a lock
///     let slotCapacity = 20
///     func register(_ region: Region) async throws(SlotMonitorError) { ... }   // throws past 20
///     func unregister(identifier: String) async { ... }
///     func state(of identifier: String) async -> RegionState { ... }
///     var registeredIdentifiers: [String] { get async { ... } }
///     func setLocationUpdates(_ enabled: Bool) async { ... }   // CLLocationManager start/stopUpdatingLocation
/// }
/// ```
///
/// Requirements the planner relies on (Core Location's documented behaviour):
/// - registering an identifier that is already registered replaces it (state reset);
/// - a region registered while the subject is already inside gives no `enter` event; its
///   state is set silently by the first deciding fix (see docs/planner.md), unless its
///   `initialTrigger` asks for an event (the planner's re-plan region asks for `.exit`);
/// - `register` throws when every slot is taken; the planner never lets that happen;
/// - `registeredIdentifiers` survives an app relaunch (the system keeps monitoring), so a
///   restored planner can reconcile with it;
/// - after `setLocationUpdates(true)` the owner passes every fix the source delivers to the
///   planner (hybrid mode and glitch probes need them), until `setLocationUpdates(false)`.
///
/// ``EngineSlotMonitor`` is the implementation on top of `Geofencing.Engine`; a
/// `RegionMonitoring` Monitor fits through `MonitorSlotMonitor`.
public protocol SlotMonitor: AnyObject, Sendable {
    /// How many regions may be registered at once (Core Location: 20 per app).
    var slotCapacity: Int { get }
    /// Registers (or replaces) a region. Throws when no slot is free or the region is refused.
    func register(_ region: Region) async throws(SlotMonitorError)
    /// Unregisters a region; unknown identifiers are ignored.
    func unregister(identifier: String) async
    /// The monitor's current state of a region (`.unknown` if not registered).
    func state(of identifier: String) async -> RegionState
    /// Every identifier the monitor holds for this app (the planner's and any others).
    var registeredIdentifiers: [String] { get async }
    /// Asks the location source for continuous updates (`true`) or lets it rest (`false`).
    func setLocationUpdates(_ enabled: Bool) async
    /// Whether the monitor may evaluate a position before the app hands it to
    /// ``RegionPlanner/observe(_:)`` — a phone's always does (Core Location reports a region
    /// event before the position that caused it). Then a region the planner registers at a
    /// fix must be decided alike by that fix and the next one (docs/planner.md, "What the app
    /// calls, in the phone's order"). Defaults to `true`; a monitor whose owner always calls
    /// `observe` first (``EngineSlotMonitor`` driven so) may say `false` and keep its plans
    /// closer to the regions.
    var evaluatesFixesFirst: Bool { get }
    /// The longest the monitor may take (seconds) to hand over an event after the fix that
    /// confirmed it: part of the guarantee (the planner sizes the re-plan region for the travel
    /// in that time and reports a later event, docs/planner.md, "Event latency"). Core Location
    /// states 3–5 minutes: the adapters in `RegionMonitoring` say 300 s. Defaults to 0 (an
    /// event as soon as it is confirmed).
    var eventLatency: TimeInterval { get }
}

extension SlotMonitor {
    /// The platform's order: the monitor sees a position before the app does.
    public var evaluatesFixesFirst: Bool { true }
    /// Events as soon as they are confirmed.
    public var eventLatency: TimeInterval { 0 }
}

/// Why a ``SlotMonitor`` refused a registration.
public enum SlotMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Registering would exceed the slot capacity.
    case slotLimitExceeded(capacity: Int, identifier: String)
    /// The device cannot monitor the region (unsupported shape, too large, ...).
    case rejected(identifier: String, reason: String)
    /// The engine refused the region; `underlying` is its validation error.
    case invalidRegion(identifier: String, underlying: GeofencingError)

    public var description: String {
        switch self {
        case .slotLimitExceeded(let n, let id): "cannot register '\(id)': all \(n) slots are in use"
        case .rejected(let id, let reason): "region '\(id)' rejected: \(reason)"
        case .invalidRegion(let id, let underlying): "region '\(id)' rejected: \(underlying)"
        }
    }
}
