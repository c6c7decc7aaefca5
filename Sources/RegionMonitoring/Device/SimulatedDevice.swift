import Foundation
import Geodesy
import Geofencing

/// The phone as the monitoring APIs see it: its settings, its position feed, and the
/// system-side region monitoring service shared by every ``LocationManager`` and ``Monitor``
/// of the app.
///
/// ```swift
/// var settings = DeviceSettings()
/// settings.authorization = .authorizedAlways
/// let device = SimulatedDevice(settings: settings)
/// let manager = await LocationManager(device: device)
/// await manager.setDelegate(myDelegate)
/// await manager.startMonitoring(for: bridge)
/// try await device.run(TrackReplay(fixes, clock: clock, speed: .scaled(100)))
/// ```
///
/// One `Engine` (policy from ``DeviceSettings/policy``) holds every monitored region under an
/// identifier of the device's own (``RegionSlots``); fixes and ticks go through it, a region's
/// first determination is held like a crossing (``InitialStateHold``), and each confirmed
/// transition is routed to the delegates or to the monitor that owns it (``RegionOwner``),
/// after the delivery rules of docs/monitoring.md (authorisation, app in use, background
/// refresh, precise location).
/// Regions live here, not in the app objects, so they outlive a closed ``Monitor`` (app not
/// running) just as Core Location keeps monitoring for a terminated app. App life
/// (``setAppState(_:)``, ``reboot()``, ``unlock()``, ``sleep()``, ``wake()``, launches and
/// wake windows) follows docs/monitoring.md rules 27–33.
public actor SimulatedDevice {
    /// The device's current settings; change them with ``update(_:)``.
    public internal(set) var settings: DeviceSettings
    /// The engine subject for this device's fixes.
    public nonisolated let subject: String
    /// Where monitors persist (`nil`: in memory only).
    public nonisolated let store: MonitorStore?
    /// The latest track time seen (fix or tick), or the start date.
    public private(set) var currentDate: Date
    /// Fixes the engine refused (invalid or out of order), in arrival order.
    public private(set) var rejectedFixes: [GeofencingError] = []
    /// Set when the stored location-manager regions could not be read at start-up (the device
    /// then starts with none and leaves the file alone until a region is registered).
    public private(set) var storeIssue: MonitoringError?

    /// Whether the device is on and unlocked since boot (see ``reboot()``, ``unlock()``).
    public internal(set) var power: PowerState = .on
    /// Whether the system is awake (macOS sleep / wake; see ``sleep()``, ``wake()``).
    public internal(set) var systemAwake = true
    /// Every launch of the app the device performed or saw, in order.
    public internal(set) var launches: [LaunchRecord] = []
    /// End of the current background window of a woken or relaunched app, or `nil`.
    public internal(set) var backgroundWindowEnd: Date?
    /// Energy-relevant counts since the device was created.
    public internal(set) var activity = DeviceActivity()
    /// The last fix the device took and evaluated, or `nil`.
    public private(set) var lastFix: LocationFix?
    /// Whether location-manager delegates receive each fix (``setLocationUpdates(_:)``).
    public internal(set) var locationUpdatesEnabled = false
    var launchHandler: (@Sendable (LaunchReason) -> Void)?

    var engine: Engine
    /// The app's region slots and each holder's engine identifier (the one place that counts them).
    var slots = RegionSlots()
    /// First determinations not yet held long enough to count, by engine identifier.
    var initialHolds: [String: InitialStateHold] = [:]
    /// `requestState` calls waiting for a region's state to become known, in call order.
    var stateRequests: [StateRequest] = []
    // Location-manager regions, shared app-wide, in registration order.
    var appRegionOrder: [String] = []
    var appRegions: [String: MonitoredRegion] = [:]
    var managers: [ObjectIdentifier: ManagerSlot] = [:]
    var managerOrder: [ObjectIdentifier] = []
    /// Location-manager region events admitted while no delegate was alive (the app was
    /// relaunched and has not created its manager yet); handed to the next delegate set.
    var pendingManagerEvents: [PendingManagerEvent] = []
    /// The last state of each location-manager region the app was told (or, for the silent
    /// first determination, found); a re-evaluation after a reboot reports only a change.
    var managerRegionStates: [String: RegionState] = [:]
    var alwaysUpgradeRequested = false
    // Monitors by name (system side: they exist while their app is closed).
    var monitors: [String: MonitorSlot] = [:]
    var nextMonitorToken: UInt64 = 0

    struct StateRequest: Equatable {
        var manager: ObjectIdentifier
        var regionID: String
    }

    struct PendingManagerEvent {
        var regionID: String
        var kind: TransitionEvent.Kind
    }

    struct ManagerSlot {
        weak var manager: LocationManager?
        weak var delegate: (any LocationManagerDelegate)?
    }

    struct MonitorSlot {
        var snapshot: MonitorSnapshot
        /// Set while an app instance has the monitor open.
        var continuation: AsyncStream<MonitorEvent>.Continuation?
        /// The open instance's token; calls from an older, closed instance are ignored.
        var owner: UInt64?
        var persistenceOK = true
        /// Sees each delivered event as the engine's transition (condition identifier as
        /// `regionID`), synchronously; set by ``MonitorSlotMonitor``.
        var tap: (@Sendable (TransitionEvent) -> Void)?
    }

    /// Creates a device.
    /// - Parameters:
    ///   - settings: the initial settings.
    ///   - subject: the engine subject name for this device's fixes.
    ///   - start: the track time before the first fix (dates of records added before any fix).
    ///   - store: where monitors persist; `nil` keeps them in memory.
    public init(
        settings: DeviceSettings = DeviceSettings(), subject: String = "device",
        start: Date = Date(timeIntervalSince1970: 0), store: MonitorStore? = nil
    ) {
        self.settings = settings
        self.subject = subject
        self.currentDate = start
        self.store = store
        self.engine = Engine(policy: settings.policy)
        do {
            if let saved = try store?.loadAppRegions() {
                // Accepted under the limit when registered: each takes its slot back.
                for r in saved where appRegions[r.identifier] == nil {
                    _ = slots.claim(.manager(identifier: r.identifier), limit: .max)
                    appRegionOrder.append(r.identifier)
                    appRegions[r.identifier] = r
                }
            }
        } catch {
            storeIssue = error
        }
        if Self.isWatching(settings, power: power) {
            for (owner, key) in slots.holders {
                guard case .manager(let id) = owner, let r = appRegions[id] else { continue }
                try? engine.add(r.engineRegion(id: key, initialTrigger: [.enter, .exit]))
            }
        }
    }

    // MARK: Settings

    /// Changes the settings; authorisation changes are reported to every delegate, and
    /// regions start or stop accordingly.
    public func update(_ change: @Sendable (inout DeviceSettings) -> Void) {
        var s = settings
        change(&s)
        apply(s)
    }

    /// Replaces the settings (see ``update(_:)``).
    public func setSettings(_ new: DeviceSettings) { apply(new) }

    func apply(_ new: DeviceSettings) {
        let old = settings
        settings = new
        if new.policy != old.policy { engine.policy = new.policy }
        syncEngine()
        let before = old.effectiveAuthorization
        let after = new.effectiveAuthorization
        guard before != after else { return }
        for (m, d) in liveDelegates() { d.locationManager(m, didChangeAuthorization: after) }
        if after.isAuthorized, !before.isAuthorized {
            for id in appRegionOrder {
                if let r = appRegions[id] {
                    for (m, d) in liveDelegates() { d.locationManager(m, didStartMonitoringFor: r) }
                }
            }
        }
        if after == .denied || after == .restricted {
            for id in appRegionOrder {
                if let r = appRegions[id] {
                    for (m, d) in liveDelegates() {
                        d.locationManager(m, monitoringDidFailFor: r, withError: .regionMonitoringDenied(after))
                    }
                }
            }
            announceDiagnostics()
        }
    }

    /// Tells each open monitor, once per condition, that monitoring is now blocked.
    func announceDiagnostics() {
        for name in monitors.keys.sorted() {
            guard let slot = monitors[name], let c = slot.continuation else { continue }
            let flags = settings.deliveryBlockers(appInUse: true)
            for id in slot.snapshot.order {
                guard let rec = slot.snapshot.records[id] else { continue }
                c.yield(MonitorEvent(identifier: id, state: rec.lastEvent.state, date: currentDate, diagnostics: flags))
            }
        }
    }

    // MARK: Engine membership

    /// Whether the app's regions are being watched now: the device is on and unlocked, the app
    /// installed, the hardware present, and an event would reach the app in its current state
    /// (authorised, precise location, and — for when-in-use authorisation or with Background
    /// App Refresh off — the app in use). Apple: a when-in-use app's "outstanding requests
    /// suspend until the user resumes using your app".
    var isWatching: Bool { Self.isWatching(settings, power: power) }

    static func isWatching(_ settings: DeviceSettings, power: PowerState) -> Bool {
        power == .on && settings.appState != .removed && settings.isRegionMonitoringAvailable
            && settings.deliveryBlockers(appInUse: settings.appState.isInUse).isDisjoint(with: .blocking)
    }

    /// The region each slot holder monitors (`nil`: nothing the engine can watch).
    func region(of owner: RegionOwner) -> MonitoredRegion? {
        switch owner {
        case .manager(let id): appRegions[id]
        case .condition(let name, let id): monitors[name]?.snapshot.records[id]?.condition.monitoredRegion
        }
    }

    /// Regions are in the engine exactly while they are watched (``isWatching``); out of it
    /// they keep no state, so watching restarts fresh, and only a state that differs from the
    /// last one reported is then delivered (rules 31, 35).
    func syncEngine() {
        var desired: [String: Region] = [:]
        if isWatching {
            for (owner, key) in slots.holders {
                desired[key] = region(of: owner)?.engineRegion(id: key, initialTrigger: [.enter, .exit])
            }
        }
        for id in engine.regionIdentifiers where desired[id] == nil { engine.remove(identifier: id) }
        for (id, r) in desired.sorted(by: { $0.key < $1.key }) where engine.region(identifier: id) == nil {
            try? engine.add(r) // in a fixed order: runs repeat exactly
        }
        initialHolds = initialHolds.filter { desired[$0.key] != nil }
    }

    /// How many regions the app monitors (manager regions and monitored conditions).
    public var monitoredRegionCount: Int { slots.count }

    /// The state of `owner`'s region as far as it counts: `unknown` until its first
    /// determination has been held (rule 36), or while it is not watched.
    func knownState(of owner: RegionOwner) -> RegionState {
        guard let key = slots.engineKey(of: owner), initialHolds[key] == nil else { return .unknown }
        return engine.state(of: subject, in: key)
    }

    // MARK: Positions and time

    /// Feeds one fix or tick. A fix is ignored while the device cannot locate (no hardware,
    /// location services off, airplane mode).
    /// - Throws: the engine's error for an invalid or out-of-order fix (also kept in
    ///   ``rejectedFixes``); nothing changes then.
    public func receive(_ update: LocationUpdate) throws(GeofencingError) {
        if update.date > currentDate { currentDate = update.date }
        expireBackgroundWindow(at: update.date)
        guard settings.canLocate, power == .on, systemAwake else { return }
        let events: [TransitionEvent]
        var processed: LocationFix?
        switch update {
        case .fix(var fix):
            fix.subject = subject
            activity.fixes += 1
            do { events = try engine.process(fix) } catch {
                rejectedFixes.append(error)
                throw error
            }
            processed = fix
            lastFix = fix
            if locationUpdatesEnabled {
                for (m, d) in liveDelegates() { d.locationManager(m, didUpdateLocations: [fix]) }
            }
        case .tick(let date):
            events = engine.advance(subject: subject, to: date)
        }
        dispatch(holdInitialStates(events, fix: processed, at: update.date))
    }

    /// Feeds every update of `source` in order (a ``TrackReplay`` paces them by its clock).
    /// Rejected fixes are skipped and kept in ``rejectedFixes``.
    public func run<S: AsyncSequence & Sendable>(_ source: S) async throws where S.Element == LocationUpdate {
        for try await update in source {
            try? receive(update)
        }
    }

    // MARK: Routing

    /// Routes each enter / exit to the region's owner, by the engine identifier's owner.
    func dispatch(_ events: [TransitionEvent]) {
        for e in events where e.kind != .dwell {
            switch slots.owner(ofEngineKey: e.regionID) {
            case .manager(let id)?: deliverToManagers(e, id: id)
            case .condition(let name, let id)?: deliverToMonitor(e, name: name, id: id)
            case nil: continue
            }
        }
    }

    func liveDelegates() -> [(LocationManager, any LocationManagerDelegate)] {
        managerOrder.compactMap { key in
            guard let slot = managers[key], let m = slot.manager, let d = slot.delegate else { return nil }
            return (m, d)
        }
    }
}
