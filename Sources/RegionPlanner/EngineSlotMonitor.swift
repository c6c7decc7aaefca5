import Foundation
import Geofencing

/// A ``SlotMonitor`` backed by a `Geofencing.Engine` for one subject, with a hard slot limit:
/// the 21st registration (by default) throws ``SlotMonitorError/slotLimitExceeded(capacity:identifier:)``.
///
/// ```swift
/// let monitor = EngineSlotMonitor(subject: "phone", policy: .coreLocation)
/// let planner = try RegionPlanner(monitor: monitor, sources: [shops])
/// try await planner.start(at: firstFix.coordinate)
/// for fix in fixes {
///     for event in try monitor.process(fix) { delivered += try await planner.handle(event) }
/// }
/// ```
///
/// `maximumRegistered` records the most regions ever registered at once, so a test can
/// show the limit held. Synchronous underneath; one task at a time.
public final class EngineSlotMonitor: SlotMonitor {
    public let slotCapacity: Int
    /// The subject whose fixes are processed.
    public let subject: String
    /// The engine holding the registered regions.
    public private(set) var engine: Engine
    /// The most regions registered at the same time so far.
    public private(set) var maximumRegistered = 0

    public init(subject: String, policy: HysteresisPolicy, slotCapacity: Int = 20) {
        self.subject = subject
        self.slotCapacity = slotCapacity
        self.engine = Engine(policy: policy)
    }

    public func register(_ region: Region) throws {
        if engine.region(identifier: region.identifier) == nil, engine.regionCount >= slotCapacity {
            throw SlotMonitorError.slotLimitExceeded(capacity: slotCapacity, identifier: region.identifier)
        }
        do { try engine.add(region) } catch {
            throw SlotMonitorError.rejected(identifier: region.identifier, reason: error.description)
        }
        maximumRegistered = max(maximumRegistered, engine.regionCount)
    }

    public func unregister(identifier: String) {
        engine.remove(identifier: identifier)
    }

    public func state(of identifier: String) -> RegionState {
        engine.state(of: subject, in: identifier)
    }

    /// Identifiers currently registered.
    public var registeredIdentifiers: [String] { engine.regionIdentifiers }

    /// Feeds a fix to the engine and returns the events it confirms.
    public func process(_ fix: LocationFix) throws -> [TransitionEvent] {
        try engine.process(fix)
    }
}
