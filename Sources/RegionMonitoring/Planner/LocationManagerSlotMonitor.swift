import Foundation
import Geodesy
import Geofencing
import RegionPlanner

/// RegionPlanner's ``SlotMonitor`` on a ``LocationManager``: the planner's regions become the
/// manager's circular regions, on any backend — the simulated device, or Core Location through
/// `CoreLocationBridge` (where it is the classic `CLLocationManager` region monitoring).
///
/// ```swift
/// let manager = await LocationManager(backend: backend)
/// let slots = await LocationManagerSlotMonitor(manager: manager)     // capacity: 20
/// let planner = try RegionPlanner(monitor: slots, sources: [shops], sizing: sizing)
/// if try await !planner.restore() { try await planner.start(at: here) }
/// for await _ in slots.arrivals {                                    // after each delegate call
///     for fix in slots.takeLocations() { notify(try await planner.observe(fix)) }
///     for event in await slots.takeEvents() { notify(try await planner.handle(event)) }
/// }
/// ```
///
/// - **Slots**: `register` checks the count before it registers: at ``slotCapacity`` regions
///   (the backend's limit) it throws ``SlotMonitorError/slotLimitExceeded(capacity:identifier:)``
///   and the backend is not asked. Core Location monitors circles only, up to its
///   `maximumRegionMonitoringDistance`: anything else throws ``SlotMonitorError/rejected(identifier:reason:)``.
///   A region the system refuses later is dropped and listed in ``takeFailures()``.
/// - **Events**: the manager's `didEnterRegion` / `didExitRegion` become transitions, handed
///   over at once (a relaunched app has about 10 s). Core Location's callbacks carry no
///   position, so ``takeEvents()`` attaches the backend's recent location
///   (``LocationManagerBackend/eventLocation()``) and, when it has none, a fix that says only
///   what the event says: the region's centre, its radius as the accuracy, at the handover
///   time. A re-plan exit then waits for a real fix through location updates (the planner asks).
/// - **Initial state**: the system says nothing about a region's first state. For a region
///   whose `initialTrigger` asks for an event (the planner's re-plan circle asks for `.exit`),
///   the adapter requests its state after registering it and turns a matching answer into
///   an initial transition — the subject already outside the re-plan circle re-plans at once.
///   An `unknown` answer (the system has not decided yet) is asked again at the next
///   ``takeEvents()``, until a crossing settles it.
/// - **Locations**: when the planner asks for continuous updates, the adapter starts the
///   manager's location updates; ``takeLocations()`` returns the positions for
///   `RegionPlanner.observe(_:)`.
/// - **State**: ``state(of:)`` is the backend's ``LocationManagerBackend/determineState(of:)``:
///   on Core Location a `requestState` answered through a continuation.
/// - **Unregistering** keeps the transitions already queued for the region: they were confirmed
///   while it was monitored (see docs/planner.md, "What the app calls, in the phone's order").
/// - **Relaunch**: ``registeredIdentifiers`` are the app's monitored regions, which the system
///   keeps; a planner's `restore()` reconciles with them. Events of regions this instance did
///   not register (an earlier launch's) pass through as crossings.
///
/// The adapter is its manager's delegate: give it a manager of its own (regions are app-wide,
/// so the app's other managers still see every event). Sendable: its tables are read and
/// written under a lock only.
public final class LocationManagerSlotMonitor: SlotMonitor, LocationManagerDelegate, @unchecked Sendable {
    /// The manager the regions are registered through.
    public let manager: LocationManager
    public let slotCapacity: Int
    /// Yields once whenever transitions are waiting in ``takeEvents()`` (newest only).
    public let arrivals: AsyncStream<Void>
    private let arrivalsContinuation: AsyncStream<Void>.Continuation
    private let lock = NSLock()
    private var regions: [String: Region] = [:]
    private var waitingInitial: [String: InitialTrigger] = [:]
    /// Regions of `waitingInitial` whose state request was answered `unknown`: asked again.
    private var askAgain: Set<String> = []
    private var queued: [(kind: TransitionEvent.Kind, id: String, initial: Bool)] = []
    /// Unregistered regions with events still queued (their flags filter those events).
    private var retired: [String: Region] = [:]
    private var failures: [SlotMonitorError] = []
    private var locations: [LocationFix] = []
    private var updates = false
    /// The event latency the planner sizes for: the backend's by default (Core Location: 300 s,
    /// ``ReplanSizing/coreLocationEventLatency``; the simulated device: 0).
    public let eventLatency: TimeInterval
    private let subject: String
    private let now: @Sendable () -> Date

    /// Wraps `manager` and becomes its delegate; the capacity is the backend's region limit.
    /// `eventLatency`: how late the platform may report a crossing (seconds; `nil`: the
    /// backend's ``LocationManagerBackend/eventLatency``).
    /// `subject`: the subject of fixes made from a region when the backend has no location;
    /// `now`: their time (the handover).
    public init(
        manager: LocationManager, eventLatency: TimeInterval? = nil, subject: String = "device",
        now: @escaping @Sendable () -> Date = { Date() }
    ) async {
        self.manager = manager
        self.subject = subject
        self.now = now
        self.eventLatency = eventLatency ?? manager.backend.eventLatency
        self.slotCapacity = await manager.backend.regionLimit
        (arrivals, arrivalsContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await manager.setDelegate(self)
    }

    // MARK: SlotMonitor

    public func register(_ region: Region) async throws(SlotMonitorError) {
        let id = region.identifier
        guard case .circle(let center, let radius) = region.shape else {
            throw .rejected(identifier: id, reason: "Core Location monitors circles only")
        }
        let maximum = await manager.maximumRegionMonitoringDistance
        guard radius.isFinite, radius > 0, radius <= maximum else {
            throw .rejected(identifier: id, reason: "radius \(radius) m is not in (0, \(maximum)] m")
        }
        guard (try? Coordinate(latitude: center.latitude, longitude: center.longitude)) != nil else {
            throw .rejected(identifier: id, reason: "the centre is not a valid coordinate")
        }
        let held = await registeredIdentifiers
        if !held.contains(id), held.count >= slotCapacity {
            throw .slotLimitExceeded(capacity: slotCapacity, identifier: id)
        }
        lock.withLock {
            regions[id] = region
            waitingInitial[id] = region.initialTrigger.isEmpty ? nil : region.initialTrigger
        }
        let circle = CircularRegion(center: center, radius: radius, identifier: id)
        await manager.startMonitoring(for: circle)
        if !region.initialTrigger.isEmpty { await manager.requestState(for: circle) }
    }

    public func unregister(identifier: String) async {
        lock.withLock {
            // Events already queued stay: the system confirmed them while the region was
            // monitored, so they are the app's (the planner hands a region over at the very
            // position that confirmed its event). Their region's flags still filter them.
            if let r = regions.removeValue(forKey: identifier), queued.contains(where: { $0.id == identifier }) {
                retired[identifier] = r
            }
            waitingInitial[identifier] = nil
            askAgain.remove(identifier)
        }
        await manager.stopMonitoring(
            for: MonitoredRegion.circle(
                CircularRegion(
                    center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 1, identifier: identifier)))
    }

    public func state(of identifier: String) async -> RegionState {
        await manager.backend.determineState(of: identifier)
    }

    /// The app's monitored regions (this launch's and earlier ones'), sorted.
    public var registeredIdentifiers: [String] {
        get async { await manager.monitoredRegions.map(\.identifier).sorted() }
    }

    /// Switches the manager's location updates (`startUpdatingLocation()`) as the planner asks.
    public func setLocationUpdates(_ enabled: Bool) async {
        lock.withLock {
            updates = enabled
            if !enabled { locations = [] }
        }
        if enabled { await manager.startUpdatingLocation() } else { await manager.stopUpdatingLocation() }
    }

    /// Whether the planner has asked for continuous location updates.
    public var locationUpdatesRequested: Bool { lock.withLock { updates } }

    /// The positions delivered since the last call while updates were requested, oldest first:
    /// hand each to `RegionPlanner.observe(_:)` before the events of ``takeEvents()``.
    public func takeLocations() -> [LocationFix] {
        lock.withLock {
            defer { locations = [] }
            return locations
        }
    }

    // MARK: Events

    /// The transitions since the last call, in order, each with the backend's current location
    /// as its fix, filtered by the `SlotMonitor` contract (a first state only when the region's
    /// `initialTrigger` asks for it; the region's notify flags). Empty, keeping them, while the
    /// backend has no location.
    public func takeEvents() async -> [TransitionEvent] {
        // A first state Core Location did not know yet: ask again, once per call.
        let again: Set<String> = lock.withLock {
            defer { askAgain = [] }
            return askAgain
        }
        for id in again.sorted() {
            guard let r = lock.withLock({ regions[id] }), case .circle(let center, let radius) = r.shape else {
                continue
            }
            await manager.requestState(for: CircularRegion(center: center, radius: radius, identifier: id))
        }
        guard lock.withLock({ !queued.isEmpty }) else { return [] }
        let recent = await manager.backend.eventLocation()
        let system = recent == nil ? await manager.monitoredRegions : []
        let (batch, known) = lock.withLock {
            () -> ([(kind: TransitionEvent.Kind, id: String, initial: Bool)], [String: Region]) in
            defer {
                queued = []
                retired = [:]
            }
            return (queued, regions.merging(retired) { current, _ in current })
        }
        var out: [TransitionEvent] = []
        for q in batch {
            if let region = known[q.id] {
                if q.kind == .enter, !region.notifyOnEntry { continue }
                if q.kind == .exit, !region.notifyOnExit { continue }
            }
            guard let fix = recent ?? regionFix(q.id, known[q.id], system) else { continue }
            out.append(
                TransitionEvent(
                    kind: q.kind, regionID: q.id, subject: fix.subject, fix: fix,
                    time: fix.timestamp, crossedAt: fix.timestamp, isInitial: q.initial))
        }
        return out
    }

    /// Where an event without a position says the device is: within the region's radius of
    /// its centre (inside it for an entry, on its boundary at an exit's crossing), now. The
    /// region is this adapter's, else the system's (an earlier launch's); `nil` for a region in
    /// neither (stopped since), whose event has nothing to place it and is dropped.
    private func regionFix(_ id: String, _ region: Region?, _ system: Set<MonitoredRegion>) -> LocationFix? {
        var circle: (center: Coordinate, radius: Double)?
        if case .circle(let center, let radius) = region?.shape {
            circle = (center, radius)
        } else if case .circle(let c) = system.first(where: { $0.identifier == id }) {
            circle = (c.center, c.radius)
        }
        guard let circle else { return nil }
        return LocationFix(
            subject: subject, coordinate: circle.center, horizontalAccuracy: circle.radius, timestamp: now())
    }

    /// Registrations the system refused after `register` returned, since the last call.
    public func takeFailures() -> [SlotMonitorError] {
        lock.withLock {
            defer { failures = [] }
            return failures
        }
    }

    // MARK: LocationManagerDelegate

    public func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion) {
        enqueue(.enter, region.identifier, initial: false)
    }

    public func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion) {
        enqueue(.exit, region.identifier, initial: false)
    }

    public func locationManager(
        _ manager: LocationManager, didDetermineState state: RegionState, for region: MonitoredRegion
    ) {
        let id = region.identifier
        let trigger: InitialTrigger? = lock.withLock {
            guard let t = waitingInitial[id] else { return nil }
            if state == .unknown {
                askAgain.insert(id)
                return nil
            }
            waitingInitial[id] = nil
            return t
        }
        guard let trigger else { return }
        if state == .inside, trigger.contains(.enter) { enqueue(.enter, id, initial: true) }
        if state == .outside, trigger.contains(.exit) { enqueue(.exit, id, initial: true) }
    }

    public func locationManager(_ manager: LocationManager, didUpdateLocations fixes: [LocationFix]) {
        let wanted = lock.withLock {
            if updates { locations += fixes }
            return updates
        }
        if wanted { arrivalsContinuation.yield() }
    }

    public func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: MonitoredRegion?,
        withError error: RegionMonitoringError
    ) {
        guard let id = region?.identifier, case .regionMonitoringFailure(let reason) = error else { return }
        lock.withLock {
            guard regions.removeValue(forKey: id) != nil else { return }
            waitingInitial[id] = nil
            failures.append(.rejected(identifier: id, reason: reason.description))
        }
    }

    private func enqueue(_ kind: TransitionEvent.Kind, _ id: String, initial: Bool) {
        lock.withLock {
            // A crossing settles the first state: no initial event for it any more.
            if !initial {
                waitingInitial[id] = nil
                askAgain.remove(id)
            }
            queued.append((kind, id, initial))
        }
        arrivalsContinuation.yield()
    }
}
