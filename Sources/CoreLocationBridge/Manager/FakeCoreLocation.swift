import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

/// A stand-in for Core Location's `CLLocationManager` that behaves as Apple documents it, for
/// tests on any platform (ours and apps'): drive it with positions and settings, and watch
/// what a ``CoreLocationManagerBackend`` — or any ``SystemLocationManager`` user — makes of it.
///
/// ```swift
/// let system = FakeCoreLocation(authorization: .authorizedAlways)
/// let backend = await CoreLocationManagerBackend(system: system)
/// let manager = await LocationManager(backend: backend)
/// await manager.startMonitoring(for: shop)
/// try await system.move(to: fixInsideShop)      // … and 20 s later, still inside
/// await backend.settle()                        // → didEnterRegion, didDetermineState(.inside)
/// ```
///
/// What it does, as Core Location does (docs/ios.md lists the Apple pages):
/// - **Later, in order**: every result is a ``SystemCallback`` sent after the call that caused
///   it, through the handler; nothing is answered from inside a call.
/// - **Regions are the system's**: shared by the app, kept while the app is not running
///   (``terminateApp()``); region events that happen meanwhile wait for the next handler, as
///   the system relaunches the app to deliver them.
/// - **Per region**: a 21st region (``regionLimit``), a radius above
///   ``maximumRegionMonitoringDistance`` or no hardware fail that region alone
///   (`regionMonitoringFailure`); the others keep working.
/// - **Delays are not refusals**: ``delaysMonitoringSetup`` or ``reportDelay(_:of:)`` send
///   `regionMonitoringSetupDelayed` (6) or `regionMonitoringResponseDelayed` (7) through
///   `monitoringDidFail`, and the region stays monitored: a delayed setup starts once time
///   passes, a delayed response keeps its events coming.
/// - **Authorisation**: regions registered before authorisation stay pending and start (with
///   `didStartMonitoring`) when it arrives; denied or restricted, each fails with
///   `regionMonitoringDenied` and stays registered.
/// - **Transitions**: decided by `Geofencing.Engine` with `HysteresisPolicy.coreLocation`
///   (a margin beyond the boundary, held 20 s); a region's first state is silent — no entry
///   for a region registered while already inside — and ``requestState(identifier:)`` answers
///   it (`unknown` until decided). Entry and exit respect the notify flags; every transition
///   is followed by `didDetermineState`.
/// - **Locations**: `requestLocation()` answers with the last position, or `locationUnknown`
///   (``LocationRequestTiming/lastPosition``), or only at the next position
///   (``LocationRequestTiming/nextPosition``, as a device that must first acquire one);
///   `startUpdatingLocation()` cancels a request not answered yet **with no callback**, as Core
///   Location does. While updating, every position is sent before the region events it causes.
///
/// Where Core Location is slower than a call, the fake is too (docs/ios.md, "hard fakes"):
/// - **`monitoredRegions` lags**: a start or stop shows there only once time passes (the next
///   ``move(to:)`` or ``advance(to:)``), as Apple warns ("may not be immediately reflected");
///   the 20-region limit is the system's true table.
/// - **Region events are late** by ``regionEventDelay`` seconds (Apple: "typically within 3–5
///   minutes" of the crossing on a phone that sleeps): decided at the crossing, delivered at the
///   first ``move(to:)`` / ``advance(to:)`` at least that much later.
public actor FakeCoreLocation: SystemLocationManager {
    /// When `requestLocation()` is answered.
    public enum LocationRequestTiming: Sendable {
        /// Later, through the callback, with the last position the device took.
        case lastPosition
        /// Only at the device's next position (``move(to:)``), or `locationUnknown` at the next
        /// ``advance(to:)``; a request `startUpdatingLocation()` cancels is never answered.
        case nextPosition
    }
    /// Most regions per app.
    public let regionLimit: Int
    /// Largest radius, metres (Apple does not publish a figure; the simulated device's default).
    public var maximumRegionMonitoringDistance: Double
    /// Whether the device has region-monitoring hardware.
    public var isMonitoringAvailable: Bool
    public private(set) var authorizationStatus: AuthorizationStatus
    /// What the user taps at the next prompt (`nil`: dismisses it).
    public var promptAnswer: AuthorizationStatus?
    public private(set) var location: LocationSample?
    /// Precise or approximate location; with approximate location iOS monitors no region, so
    /// the fake reports none.
    public private(set) var accuracyAuthorization: AccuracyAuthorization = .fullAccuracy
    /// Whether continuous location updates are on.
    public private(set) var isUpdatingLocation = false
    /// How many `startMonitoring` calls reached the system (refused ones included).
    public private(set) var startMonitoringCalls = 0
    /// Every callback sent, in order.
    public private(set) var sent: [SystemCallback] = []

    /// When `requestLocation()` is answered.
    public var locationRequestTiming: LocationRequestTiming
    /// Seconds between a crossing and its region event (0: at the deciding position).
    public var regionEventDelay: TimeInterval
    /// Whether `monitoredRegions` shows starts and stops only once time passes (the device's way).
    public var regionTableLags: Bool
    /// `requestLocation()` calls that `startUpdatingLocation()` cancelled before an answer.
    public private(set) var cancelledLocationRequests = 0
    /// Whether a new region's monitoring starts late: `startMonitoring` answers
    /// `regionMonitoringSetupDelayed` (code 6) and the region starts (`didStartMonitoring`)
    /// once time passes, as Core Location does when it cannot set monitoring up at once.
    public var delaysMonitoringSetup = false
    /// Sets ``delaysMonitoringSetup``.
    public func setDelaysMonitoringSetup(_ delays: Bool) { delaysMonitoringSetup = delays }
    /// Regions whose setup Core Location delayed: kept and counted, started once time passes.
    private var setupDelayed: [String] = []

    private var handler: (@Sendable (SystemCallback) -> Void)?
    private var pendingLocationRequest = false
    private var lateEvents: [(due: Date, callback: SystemCallback)] = []
    /// What `monitoredRegions` shows while the table lags.
    private var visibleTable: [SystemRegion] = []
    private var held: [SystemCallback] = []
    private var order: [String] = []
    private var regions: [String: SystemRegion] = [:]
    private var started: Set<String> = []
    private var states: [String: RegionState] = [:]
    private var engine = Engine(policy: .coreLocation)
    private var alwaysUpgradeAsked = false
    private static let subject = "system"

    public init(
        authorization: AuthorizationStatus = .notDetermined, promptAnswer: AuthorizationStatus? = .authorizedAlways,
        regionLimit: Int = 20, maximumRegionMonitoringDistance: Double = 400_000, isMonitoringAvailable: Bool = true,
        locationRequestTiming: LocationRequestTiming = .lastPosition, regionEventDelay: TimeInterval = 0,
        regionTableLags: Bool = true
    ) {
        self.locationRequestTiming = locationRequestTiming
        self.regionEventDelay = regionEventDelay
        self.regionTableLags = regionTableLags
        self.authorizationStatus = authorization
        self.promptAnswer = promptAnswer
        self.regionLimit = regionLimit
        self.maximumRegionMonitoringDistance = maximumRegionMonitoringDistance
        self.isMonitoringAvailable = isMonitoringAvailable
    }

    // MARK: SystemLocationManager

    public func setCallbackHandler(_ handler: @escaping @Sendable (SystemCallback) -> Void) {
        self.handler = handler
        let waiting = held
        held = []
        for callback in waiting { handler(callback) }
    }

    public func startMonitoring(_ region: SystemRegion) {
        startMonitoringCalls += 1
        let id = region.identifier
        let fits = regions[id] != nil || regions.count < regionLimit
        guard isMonitoringAvailable, fits, region.radius.isFinite, region.radius > 0,
            region.radius <= maximumRegionMonitoringDistance
        else {
            return post(.monitoringDidFail(identifier: id, .regionMonitoringFailure))
        }
        if regions[id] == nil { order.append(id) }
        regions[id] = region
        stopWatching(id)
        if authorizationStatus.isAuthorized, delaysMonitoringSetup {
            delaySetup(of: id)
        } else if authorizationStatus.isAuthorized {
            startWatching(id)
        } else if authorizationStatus == .denied || authorizationStatus == .restricted {
            post(.monitoringDidFail(identifier: id, .regionMonitoringDenied))
        }
    }

    public func stopMonitoring(identifier: String) {
        guard regions.removeValue(forKey: identifier) != nil else { return }
        order.removeAll { $0 == identifier }
        setupDelayed.removeAll { $0 == identifier }
        stopWatching(identifier)
    }

    public func requestState(identifier: String) {
        post(.didDetermineState(states[identifier] ?? .unknown, identifier: identifier))
    }

    public var monitoredRegions: [SystemRegion] { regionTableLags ? visibleTable : systemTable }

    /// The regions the system really monitors, in the order they were started.
    public var systemTable: [SystemRegion] { order.compactMap { regions[$0] } }

    public func requestWhenInUseAuthorization() {
        guard authorizationStatus == .notDetermined, let answer = promptAnswer else { return }
        setAuthorization(answer == .authorizedAlways ? .authorizedWhenInUse : answer)
    }

    public func requestAlwaysAuthorization() {
        switch authorizationStatus {
        case .notDetermined:
            if let answer = promptAnswer { setAuthorization(answer) }
        case .authorizedWhenInUse where !alwaysUpgradeAsked:
            alwaysUpgradeAsked = true // one upgrade prompt per app
            if promptAnswer == .authorizedAlways { setAuthorization(.authorizedAlways) }
        default:
            return
        }
    }

    public func requestLocation() {
        switch locationRequestTiming {
        case .lastPosition: answerLocationRequest()
        case .nextPosition: pendingLocationRequest = true
        }
    }

    public func startUpdatingLocation() {
        if pendingLocationRequest {
            pendingLocationRequest = false // cancelled: no callback (CLLocationManager.h)
            cancelledLocationRequests += 1
        }
        isUpdatingLocation = true
    }

    private func answerLocationRequest() {
        pendingLocationRequest = false
        if let location { post(.didUpdateLocations([location])) } else { post(.didFailWithError(.locationUnknown)) }
    }

    public func stopUpdatingLocation() { isUpdatingLocation = false }

    // MARK: Driving the fake

    /// The user (or Settings) changes the app's authorisation.
    public func setAuthorization(_ status: AuthorizationStatus) {
        let before = authorizationStatus
        guard status != before else { return }
        authorizationStatus = status
        post(.didChangeAuthorization(status))
        if status.isAuthorized, !before.isAuthorized {
            for id in order where !started.contains(id) { startWatching(id) }
        } else if status == .denied || status == .restricted {
            for id in order {
                stopWatching(id)
                post(.monitoringDidFail(identifier: id, .regionMonitoringDenied))
            }
        }
    }

    /// Core Location reports that monitoring the registered region `identifier` is delayed
    /// (`monitoringDidFailFor` with code 6 or 7) and keeps it: a delayed setup starts once time
    /// passes, a delayed response keeps its events coming. Nothing for a region not registered.
    public func reportDelay(_ kind: MonitoringDelay.Kind, of identifier: String) {
        guard regions[identifier] != nil else { return }
        switch kind {
        case .setup: delaySetup(of: identifier)
        case .response: post(.monitoringDidFail(identifier: identifier, .regionMonitoringResponseDelayed))
        }
    }

    private func delaySetup(of id: String) {
        stopWatching(id)
        if !setupDelayed.contains(id) { setupDelayed.append(id) }
        post(.monitoringDidFail(identifier: id, .regionMonitoringSetupDelayed))
    }

    /// The system forgets its position (`location` is `nil`, as after a restart): until the
    /// next ``move(to:)``, a `requestLocation()` fails or waits, by ``locationRequestTiming``.
    public func forgetLocation() { location = nil }

    /// The user switches Precise Location on or off.
    public func setAccuracyAuthorization(_ accuracy: AccuracyAuthorization) { accuracyAuthorization = accuracy }

    /// Sets what the user taps at the next prompt.
    public func setPromptAnswer(_ answer: AuthorizationStatus?) { promptAnswer = answer }

    /// The device takes a position: it becomes ``location`` and the started regions are evaluated.
    /// - Throws: the engine's error for an invalid or out-of-order fix (nothing changes then).
    public func move(to fix: LocationFix) throws(GeofencingError) {
        var f = fix
        f.subject = Self.subject
        let events = try engine.process(f)
        timePasses(to: fix.timestamp)
        location = LocationSample(
            latitude: fix.coordinate.latitude, longitude: fix.coordinate.longitude,
            horizontalAccuracy: fix.horizontalAccuracy ?? 0,
            speed: fix.speed ?? -1, speedAccuracy: fix.speed == nil ? -1 : 0,
            course: fix.course ?? -1, courseAccuracy: fix.course == nil ? -1 : 0,
            timestamp: fix.timestamp)
        if isUpdatingLocation, authorizationStatus.isAuthorized, let location { post(.didUpdateLocations([location])) }
        if pendingLocationRequest { answerLocationRequest() }
        report(events)
    }

    /// Time passes without a position (confirms transitions held long enough).
    public func advance(to date: Date) {
        timePasses(to: date)
        if pendingLocationRequest {
            pendingLocationRequest = false
            post(.didFailWithError(.locationUnknown))
        }
        report(engine.advance(subject: Self.subject, to: date))
    }

    /// The region table catches up and late events fall due.
    private func timePasses(to date: Date) {
        visibleTable = systemTable
        let delayed = setupDelayed
        setupDelayed = []
        if authorizationStatus.isAuthorized { for id in delayed where regions[id] != nil { startWatching(id) } }
        let due = lateEvents.filter { $0.due <= date }
        lateEvents.removeAll { $0.due <= date }
        for event in due { post(event.callback) }
    }

    /// The app's process ends: callbacks stop until a new handler is set (a relaunch); region
    /// events meanwhile wait for it; regions stay monitored.
    public func terminateApp() {
        handler = nil
        pendingLocationRequest = false
    }

    /// The state the system holds for region `identifier`.
    public func state(of identifier: String) -> RegionState { states[identifier] ?? .unknown }

    // MARK: Internals

    private func startWatching(_ id: String) {
        guard let r = regions[id] else { return }
        started.insert(id)
        try? engine.add(.circle(identifier: id, center: r.center, radius: r.radius, initialTrigger: [.enter, .exit]))
        post(.didStartMonitoring(identifier: id))
    }

    private func stopWatching(_ id: String) {
        started.remove(id)
        states[id] = nil
        engine.remove(identifier: id)
    }

    private func report(_ events: [TransitionEvent]) {
        for e in events where e.kind != .dwell && accuracyAuthorization == .fullAccuracy {
            guard let r = regions[e.regionID], started.contains(e.regionID) else { continue }
            let state: RegionState = e.kind == .enter ? .inside : .outside
            states[e.regionID] = state
            if e.isInitial { continue } // the first state is silent
            if e.kind == .enter, r.notifyOnEntry { postRegionEvent(.didEnterRegion(identifier: e.regionID), e) }
            if e.kind == .exit, r.notifyOnExit { postRegionEvent(.didExitRegion(identifier: e.regionID), e) }
            postRegionEvent(.didDetermineState(state, identifier: e.regionID), e)
        }
    }

    private func postRegionEvent(_ callback: SystemCallback, _ e: TransitionEvent) {
        guard regionEventDelay > 0 else { return post(callback) }
        lateEvents.append((e.time.addingTimeInterval(regionEventDelay), callback))
    }

    private func post(_ callback: SystemCallback) {
        sent.append(callback)
        if let handler { return handler(callback) }
        switch callback {
        case .didEnterRegion, .didExitRegion, .didDetermineState: held.append(callback)
        default: break
        }
    }
}
