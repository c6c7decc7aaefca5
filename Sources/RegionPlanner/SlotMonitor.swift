import Geofencing

/// A region monitor with a fixed number of slots, as an app sees Core Location: register a
/// region, unregister it, ask its current state; transition events come out of the monitor
/// and the owner hands them to ``RegionPlanner/handle(_:)``.
///
/// ```swift
/// final class MyMonitor: SlotMonitor {
///     let slotCapacity = 20
///     func register(_ region: Region) async throws { ... }   // throws past 20
///     func unregister(identifier: String) async { ... }
///     func state(of identifier: String) async -> RegionState { ... }
/// }
/// ```
///
/// Requirements the planner relies on (Core Location's documented behaviour):
/// - registering an identifier that is already registered replaces it (state reset);
/// - a region registered while the subject is already inside gives no `enter` event; its
///   state is set silently by the first deciding fix (see docs/planner.md);
/// - `register` throws when every slot is taken; the planner never lets that happen.
///
/// ``EngineSlotMonitor`` is the implementation on top of `Geofencing.Engine`; a
/// `RegionMonitoring` Monitor / LocationManager fits through a thin adapter.
public protocol SlotMonitor: AnyObject {
    /// How many regions may be registered at once (Core Location: 20 per app).
    var slotCapacity: Int { get }
    /// Registers (or replaces) a region. Throws when no slot is free.
    func register(_ region: Region) async throws
    /// Unregisters a region; unknown identifiers are ignored.
    func unregister(identifier: String) async
    /// The monitor's current state of a region (`.unknown` if not registered).
    func state(of identifier: String) async -> RegionState
}

/// Errors of ``EngineSlotMonitor``.
public enum SlotMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Registering would exceed the slot capacity.
    case slotLimitExceeded(capacity: Int, identifier: String)
    /// The engine refused the region.
    case rejected(identifier: String, reason: String)

    public var description: String {
        switch self {
        case let .slotLimitExceeded(n, id): "cannot register '\(id)': all \(n) slots are in use"
        case let .rejected(id, reason): "region '\(id)' rejected: \(reason)"
        }
    }
}
