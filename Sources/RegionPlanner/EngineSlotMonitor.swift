import Foundation
import Geofencing

/// A ``SlotMonitor`` backed by a `Geofencing.Engine` for one subject, with a hard slot limit:
/// the 21st registration (by default) throws ``SlotMonitorError/slotLimitExceeded(capacity:identifier:)``.
/// It stands for the operating system's region monitoring: it outlives the planner (an app
/// relaunch discards the planner, not this).
///
/// ```swift
/// let monitor = EngineSlotMonitor(subject: "phone", policy: .coreLocation)
/// let planner = try RegionPlanner(monitor: monitor, sources: [shops], sizing: sizing)
/// try await planner.start(at: firstFix)
/// for fix in fixes {
///     if monitor.locationUpdatesEnabled { delivered += try await planner.observe(fix) }
///     for event in try monitor.process(fix) { delivered += try await planner.handle(event) }
/// }
/// ```
///
/// `maximumRegistered` records the most regions ever registered at once, so a test can show
/// the limit held. Sendable: every stored property is read and written under `lock` only, and
/// each method holds it for its whole body, so calls from several tasks are serialised.
public final class EngineSlotMonitor: SlotMonitor, @unchecked Sendable {
    public let slotCapacity: Int
    /// The subject whose fixes are processed.
    public let subject: String
    private let lock = NSLock()
    private var _engine: Engine
    private var _maximumRegistered = 0
    private var _locationUpdates = false
    private var _updateSwitches = 0

    /// Whether the owner may call ``process(_:)`` with a fix before the planner's `observe`
    /// (the platform's order); `false`: the planner always sees a fix first.
    public let evaluatesFixesFirst: Bool
    /// The latency the owner promises for handing this monitor's events to the planner
    /// (``process(_:)`` returns them at once; an owner that holds them back states how long).
    public let eventLatency: TimeInterval

    public init(
        subject: String, policy: HysteresisPolicy, slotCapacity: Int = 20, evaluatesFixesFirst: Bool = false,
        eventLatency: TimeInterval = 0
    ) {
        self.evaluatesFixesFirst = evaluatesFixesFirst
        self.eventLatency = eventLatency
        self.subject = subject
        self.slotCapacity = slotCapacity
        self._engine = Engine(policy: policy)
    }

    /// A copy of the engine holding the registered regions.
    public var engine: Engine { lock.withLock { _engine } }
    /// The most regions registered at the same time so far.
    public var maximumRegistered: Int { lock.withLock { _maximumRegistered } }
    /// Whether the planner has asked for continuous location updates.
    public var locationUpdatesEnabled: Bool { lock.withLock { _locationUpdates } }
    /// How many times continuous updates were switched on.
    public var locationUpdateStarts: Int { lock.withLock { _updateSwitches } }

    public func register(_ region: Region) throws(SlotMonitorError) {
        lock.lock()
        defer { lock.unlock() }
        if _engine.region(identifier: region.identifier) == nil, _engine.regionCount >= slotCapacity {
            throw .slotLimitExceeded(capacity: slotCapacity, identifier: region.identifier)
        }
        do { try _engine.add(region) } catch {
            throw .invalidRegion(identifier: region.identifier, underlying: error)
        }
        _maximumRegistered = max(_maximumRegistered, _engine.regionCount)
    }

    public func unregister(identifier: String) {
        lock.withLock { _ = _engine.remove(identifier: identifier) }
    }

    public func state(of identifier: String) -> RegionState {
        lock.withLock { _engine.state(of: subject, in: identifier) }
    }

    /// Identifiers currently registered.
    public var registeredIdentifiers: [String] { lock.withLock { _engine.regionIdentifiers } }

    public func setLocationUpdates(_ enabled: Bool) {
        lock.withLock {
            if enabled, !_locationUpdates { _updateSwitches += 1 }
            _locationUpdates = enabled
        }
    }

    /// Feeds a fix to the engine and returns the events it confirms.
    public func process(_ fix: LocationFix) throws(GeofencingError) -> [TransitionEvent] {
        lock.lock()
        defer { lock.unlock() }
        return try _engine.process(fix)
    }
}
