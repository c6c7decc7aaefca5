import Foundation
import Geodesy
import Geofencing
import RegionMonitoring
import RegionPlanner

/// A ``LocationManager`` backend on Core Location's `CLLocationManager` (through a
/// ``SystemLocationManager``: the real one on Apple platforms, ``FakeCoreLocation`` in tests).
///
/// ```swift
/// let backend = await CoreLocationManagerBackend(system: AppleLocationManager())   // at launch
/// let manager = await LocationManager(backend: backend)
/// await manager.setDelegate(appDelegate)
/// await manager.startMonitoring(for: CircularRegion(center: shop, radius: 150, identifier: "shop"))
/// ```
///
/// Everything that is not an Apple call is here and tested on Linux against the fake:
/// - **Checked before registering**: Core Location monitors circles only; an empty identifier,
///   a radius that is not a positive number, a radius above `maximumRegionMonitoringDistance`,
///   no monitoring hardware, or a 21st region (``regionLimit``; a replacement does not count)
///   fail at once through `monitoringDidFailFor` and never reach the system. Failures the
///   system reports later are passed on as they come (`reportedBySystem` when Core Location
///   does not say why) and the region is dropped. A delay (codes 6 and 7) is not a failure:
///   the region stays registered and counted, and the delay is reported as a
///   ``MonitoringDelay`` (``delayNotices``).
/// - **Delegates**: the system's callbacks are handled on this actor, one at a time, in the
///   order the system sent them. Region events go to every manager's delegate; a start or a
///   failure to the manager that registered the region; a state answer to the managers that
///   asked (to every manager when it follows a transition). Region events are also kept a
///   while (``EventHold``: 60 s, 100 callbacks) for delegates set after they arrived: a
///   relaunch's event reaches the planner's adapter whatever the app wires first.
/// - **Its own table**: Apple warns that `monitoredRegions` "may not be immediately
///   reflected" after a start or stop, so slots are counted, and regions stopped and queried,
///   from the table of what this backend registered — never from `monitoredRegions`, which is
///   read once, at launch, to find what earlier launches left.
/// - **State**: ``determineState(of:)`` asks the system and waits for its answer (a
///   continuation). It never waits on a system that may not answer: without authorisation it
///   answers `unknown` at once; stopping the region, a failure for it, losing authorisation, or
///   ``Timeouts/stateAnswer`` seconds without an answer answer the waiting requests `unknown`.
/// - **Location**: ``currentLocation()`` is the system's last location when it is at most
///   ``locationFreshness`` old, otherwise a one-shot `requestLocation()` awaited through a
///   continuation: `nil` when it fails, and after ``Timeouts/location`` seconds (Core Location
///   cancels a pending request with no callback when updates start).
/// - **Background window**: a region event goes to the delegates at once; the adapter hands it
///   over with ``eventLocation()`` (a recent location or none, never a stale one). With a
///   ``BackgroundExecution``, a background task is held from the event until the next position
///   or ``BackgroundWindow`` (the time left less 3 s, 25 s at most), so a position the app asks
///   for (the planner's updates) can still come.
/// - **Relaunch**: regions are the system's; a new backend finds them in `monitoredRegions`.
///
/// Callback bookkeeping is O(managers) per callback; ``settle()`` lets tests wait until every
/// callback the system has sent so far has been handled.
public actor CoreLocationManagerBackend: LocationManagerBackend {
    /// The system manager this backend drives.
    public nonisolated let system: any SystemLocationManager
    /// Subject of the fixes this backend makes from the system's locations.
    public nonisolated let subject: String
    /// Most regions the app may monitor (Core Location: 20).
    public nonisolated let limit: Int
    /// How old the system's last location may be for ``currentLocation()`` to use it, seconds.
    public nonisolated let locationFreshness: TimeInterval
    /// How long each wait on the system may last.
    public nonisolated let timeouts: Timeouts
    /// The app's background time (`nil`: none is asked, as on macOS).
    public nonisolated let background: (any BackgroundExecution)?
    /// How a region event's background task is bounded.
    public nonisolated let backgroundWindow: BackgroundWindow
    var heldTask: HeldTask?
    var holdSerial = 0
    let now: @Sendable () -> Date
    let sleep: @Sendable (TimeInterval) async -> Void
    var nextWaiter = 0
    let counter = CallbackCounter()
    var consumer: Task<Void, Never>?
    var handled = CompletionCount()

    var managers: [ObjectIdentifier: ManagerSlot] = [:]
    var managerOrder: [ObjectIdentifier] = []
    /// The regions as the app registered them, by identifier.
    var regions: [String: MonitoredRegion] = [:]
    /// Who registered each region (start and failure callbacks go there).
    var registrants: [String: ObjectIdentifier] = [:]
    /// Managers waiting for a `requestState` answer, by region.
    var stateRequesters: [String: [ObjectIdentifier]] = [:]
    var stateWaiters: [String: [(id: Int, continuation: CheckedContinuation<RegionState, Never>)]] = [:]
    var stateAnswers: [String: (serial: Int, state: RegionState)] = [:]
    var locationWaiters: [(id: Int, continuation: CheckedContinuation<LocationFix?, Never>)] = []
    var locationAnswers: (serial: Int, fix: LocationFix?) = (0, nil)
    /// Region events kept for delegates set after they arrived (a relaunch's wiring).
    var held: HeldRegionEvents
    /// Registered regions whose monitoring Core Location reported delayed (codes 6 and 7),
    /// until it starts them, one of their events arrives, or they are stopped.
    public internal(set) var delayedRegions: [String: MonitoringDelay.Kind] = [:]
    /// Every delay Core Location reports, in order (the newest 100 while nobody reads).
    public nonisolated let delayNotices: AsyncStream<MonitoringDelay>
    let delayContinuation: AsyncStream<MonitoringDelay>.Continuation

    struct ManagerSlot {
        weak var manager: LocationManager?
        weak var delegate: (any LocationManagerDelegate)?
    }

    /// Starts handling `system`'s callbacks.
    /// - Parameters:
    ///   - subject: the subject of the fixes made from the system's locations.
    ///   - regionLimit: regions the app may monitor at once (Core Location: 20).
    ///   - locationFreshness: seconds the last location stays good for re-planning (60 s:
    ///     the planner's re-plan circle is sized for fixes that recent; docs/ios.md).
    ///   - timeouts: how long a state or location request may wait for the system.
    ///   - eventHold: how long and how many region events are kept for delegates set later.
    ///   - background: the app's background time (UIKit's on iOS), held while a region event's
    ///     position may come, within `backgroundWindow`.
    ///   - now: the clock for ``locationFreshness`` and `eventHold`.
    ///   - sleep: waits the given seconds (tests pass a manual clock's).
    public init(
        system: any SystemLocationManager, subject: String = "device", regionLimit: Int = 20,
        locationFreshness: TimeInterval = 60, timeouts: Timeouts = Timeouts(), eventHold: EventHold = EventHold(),
        background: (any BackgroundExecution)? = nil, backgroundWindow: BackgroundWindow = BackgroundWindow(),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (TimeInterval) async -> Void = { try? await Task.sleep(for: .seconds($0)) }
    ) async {
        self.system = system
        self.subject = subject
        self.limit = regionLimit
        self.locationFreshness = locationFreshness
        self.timeouts = timeouts
        self.held = HeldRegionEvents(hold: eventHold)
        self.background = background
        self.backgroundWindow = backgroundWindow
        (delayNotices, delayContinuation) = AsyncStream.makeStream(
            of: MonitoringDelay.self, bufferingPolicy: .bufferingNewest(100))
        self.now = now
        self.sleep = sleep
        let (stream, continuation) = AsyncStream.makeStream(of: SystemCallback.self, bufferingPolicy: .unbounded)
        let counter = self.counter
        await system.setCallbackHandler { callback in
            counter.increment()
            continuation.yield(callback)
        }
        for region in await system.monitoredRegions { regions[region.identifier] = region.monitoredRegion }
        consumer = Task { [weak self] in
            for await callback in stream {
                guard let self else { return }
                await self.handle(callback)
            }
        }
    }

    deinit {
        consumer?.cancel()
        delayContinuation.finish()
        // A background task held for an event is never left to expire.
        if let id = heldTask?.id, let background { Task { await background.endTask(id) } }
    }

    /// Returns once every callback the system has sent so far has been handled.
    public func settle() async {
        let target = counter.value
        guard !handled.reached(target) else { return }
        await withCheckedContinuation { handled.resume($0, at: target) }
    }

    /// State and location requests waiting for the system's answer.
    var waitingRequests: Int { stateWaiters.values.reduce(0) { $0 + $1.count } + locationWaiters.count }

    // MARK: LocationManagerBackend

    public func register(_ manager: LocationManager) {
        let key = ObjectIdentifier(manager)
        if managers[key] == nil { managerOrder.append(key) }
        managers[key] = ManagerSlot(manager: manager, delegate: managers[key]?.delegate)
    }

    public func setDelegate(_ delegate: (any LocationManagerDelegate)?, for manager: LocationManager) async {
        // Asked before the delegate is set: region events handled meanwhile are held, so the
        // delegate gets them all in order, after the status.
        let status = await system.authorizationStatus
        let key = ObjectIdentifier(manager)
        if managers[key] == nil { register(manager) }
        managers[key]?.delegate = delegate
        guard let delegate else { return }
        // Core Location reports the status once the manager exists.
        delegate.locationManager(manager, didChangeAuthorization: status)
        for callback in held.unseen(by: delegate, at: now()) { deliverRegionEvent(callback, to: [(manager, delegate)]) }
    }

    public func startMonitoring(_ region: MonitoredRegion, by manager: LocationManager) async {
        let maximum = await maximumRegionMonitoringDistance
        // Counted in this backend's table, read after the last await: a 21st never reaches the
        // system, however calls overlap, and a stale `monitoredRegions` cannot leak a slot.
        let replacing = regions[region.identifier] != nil
        if let problem = Self.problem(
            with: region, maximumDistance: maximum, held: replacing ? 0 : regions.count, limit: limit)
        {
            if let d = managers[ObjectIdentifier(manager)]?.delegate {
                d.locationManager(manager, monitoringDidFailFor: region, withError: .regionMonitoringFailure(problem))
            }
            return
        }
        guard case .circle(let circle) = region else { return }
        regions[region.identifier] = region
        registrants[region.identifier] = ObjectIdentifier(manager)
        await system.startMonitoring(SystemRegion(circle))
    }

    public func stopMonitoring(_ identifier: String) async {
        regions[identifier] = nil
        registrants[identifier] = nil
        delayedRegions[identifier] = nil
        stateRequesters[identifier] = nil
        for waiter in stateWaiters.removeValue(forKey: identifier) ?? [] {
            waiter.continuation.resume(returning: .unknown)
        }
        await system.stopMonitoring(identifier: identifier)
    }

    /// The regions this backend registered, and those earlier launches left (read at launch).
    public var monitoredRegions: Set<MonitoredRegion> { Set(regions.values) }

    public func requestState(_ region: MonitoredRegion, by manager: LocationManager) async {
        let id = region.identifier
        guard regions[id] != nil else {
            managers[ObjectIdentifier(manager)]?.delegate?.locationManager(
                manager, didDetermineState: .unknown, for: region)
            return
        }
        let key = ObjectIdentifier(manager)
        if !(stateRequesters[id] ?? []).contains(key) { stateRequesters[id, default: []].append(key) }
        await system.requestState(identifier: id)
    }

    public func determineState(of identifier: String) async -> RegionState {
        // Without authorisation the system may never answer: nothing to wait for.
        guard regions[identifier] != nil, await system.authorizationStatus.isAuthorized else { return .unknown }
        let before = stateAnswers[identifier]?.serial ?? 0
        await system.requestState(identifier: identifier)
        // The answer may have been handled while this call waited on the system.
        if let answer = stateAnswers[identifier], answer.serial > before { return answer.state }
        let id = takeWaiterID()
        expire(after: timeouts.stateAnswer) { backend in backend.expireStateWaiter(id, for: identifier) }
        return await withCheckedContinuation { stateWaiters[identifier, default: []].append((id, $0)) }
    }

    public var authorizationStatus: AuthorizationStatus {
        get async { await system.authorizationStatus }
    }

    public func requestAuthorization(always: Bool) async {
        if always { await system.requestAlwaysAuthorization() } else { await system.requestWhenInUseAuthorization() }
    }

    public var maximumRegionMonitoringDistance: Double {
        get async { await system.isMonitoringAvailable ? await system.maximumRegionMonitoringDistance : -1 }
    }

    public var regionLimit: Int { limit }

    /// Core Location's stated latency, ``RegionPlanner/ReplanSizing/coreLocationEventLatency``.
    public nonisolated var eventLatency: TimeInterval { ReplanSizing.coreLocationEventLatency }

    public func setLocationUpdates(_ enabled: Bool) async {
        if enabled { await system.startUpdatingLocation() } else { await system.stopUpdatingLocation() }
    }

    public func currentLocation() async -> LocationFix? {
        guard await system.authorizationStatus.isAuthorized else { return nil }
        if let sample = await system.location, let fix = sample.locationFix(subject: subject),
            now().timeIntervalSince(fix.timestamp) <= locationFreshness
        {
            return fix
        }
        let before = locationAnswers.serial
        await system.requestLocation()
        if locationAnswers.serial > before { return locationAnswers.fix }
        let id = takeWaiterID()
        expire(after: timeouts.location) { backend in backend.expireLocationWaiter(id) }
        return await withCheckedContinuation { locationWaiters.append((id, $0)) }
    }

    /// Whether the user shares a precise location (with approximate location, no region events).
    public var accuracyAuthorization: AccuracyAuthorization {
        get async { await system.accuracyAuthorization }
    }

    // MARK: Timeouts

    /// How long a request waits for Core Location before it is answered without it.
    public struct Timeouts: Sendable, Hashable {
        /// Seconds a `requestState` may wait for `didDetermineState` (then `unknown`).
        public var stateAnswer: TimeInterval
        /// Seconds a `requestLocation` may wait for a location (then `nil`).
        public var location: TimeInterval

        /// Defaults: 10 s for a state (the system answers from what it holds), 30 s for a
        /// location (a cold GPS start takes up to about 30 s; docs/ios.md).
        public init(stateAnswer: TimeInterval = 10, location: TimeInterval = 30) {
            self.stateAnswer = stateAnswer
            self.location = location
        }
    }

    func takeWaiterID() -> Int {
        nextWaiter += 1
        return nextWaiter
    }

    /// Runs `body` on this actor once `seconds` have passed (a waiter still waiting then is answered).
    func expire(after seconds: TimeInterval, _ body: @escaping @Sendable (isolated CoreLocationManagerBackend) -> Void)
    {
        let sleep = self.sleep
        Task { [weak self] in
            await sleep(seconds)
            guard let self else { return }
            await self.run(body)
        }
    }

    private func run(_ body: @Sendable (isolated CoreLocationManagerBackend) -> Void) { body(self) }

    func expireStateWaiter(_ id: Int, for identifier: String) {
        guard let index = stateWaiters[identifier]?.firstIndex(where: { $0.id == id }) else { return }
        let waiter = stateWaiters[identifier]!.remove(at: index)
        waiter.continuation.resume(returning: .unknown)
    }

    func expireLocationWaiter(_ id: Int) {
        guard let index = locationWaiters.firstIndex(where: { $0.id == id }) else { return }
        locationWaiters.remove(at: index).continuation.resume(returning: nil)
    }

    // MARK: Checks

    /// Why Core Location would refuse `region`, checked here so that the refusal is immediate
    /// and typed; `nil` when it may be registered.
    static func problem(
        with region: MonitoredRegion, maximumDistance: Double, held: Int, limit: Int
    )
        -> RegionMonitoringError.FailureReason?
    {
        let id = region.identifier
        guard maximumDistance >= 0 else { return .unavailable }
        guard case .circle(let circle) = region else {
            return .invalidRegion(
                .invalidRegion(identifier: id, field: "shape", reason: "Core Location monitors circles only"))
        }
        if id.isEmpty { return .invalidRegion(.invalidRegion(identifier: id, field: "identifier", reason: "is empty")) }
        guard (try? Coordinate(latitude: circle.center.latitude, longitude: circle.center.longitude)) != nil else {
            return .invalidRegion(.invalidRegion(identifier: id, field: "center", reason: "is not a valid coordinate"))
        }
        guard circle.radius.isFinite, circle.radius > 0 else {
            return .invalidRegion(
                .invalidRegion(
                    identifier: id, field: "radius",
                    reason: "must be a positive number of metres (got \(circle.radius))"))
        }
        if circle.radius > maximumDistance { return .radiusTooLarge(radius: circle.radius, maximum: maximumDistance) }
        if held >= limit { return .limitExceeded(limit: limit) }
        return nil
    }
}

/// Counts callbacks as the system sends them (from any thread), for ``CoreLocationManagerBackend/settle()``.
final class CallbackCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
