import Foundation
import Geofencing

extension SimulatedDevice {
    public func register(_ manager: LocationManager) {
        let key = ObjectIdentifier(manager)
        if managers[key] == nil { managerOrder.append(key) }
        managers[key] = ManagerSlot(manager: manager, delegate: nil)
    }

    public func setDelegate(_ delegate: (any LocationManagerDelegate)?, for manager: LocationManager) {
        let key = ObjectIdentifier(manager)
        if managers[key] == nil { register(manager) }
        managers[key]?.delegate = delegate
        // Core Location reports the status once the manager exists, then on each change.
        delegate?.locationManager(manager, didChangeAuthorization: settings.effectiveAuthorization)
        // A relaunched app gets the event it was launched for once it has a delegate.
        guard let delegate, !pendingManagerEvents.isEmpty else { return }
        let pending = pendingManagerEvents
        pendingManagerEvents = []
        for p in pending { deliver(p, to: [(manager, delegate)]) }
    }

    func delegate(of manager: LocationManager) -> (any LocationManagerDelegate)? {
        managers[ObjectIdentifier(manager)]?.delegate
    }

    public var monitoredRegions: Set<MonitoredRegion> { Set(appRegions.values) }

    public func startMonitoring(_ region: MonitoredRegion, by manager: LocationManager) {
        let d = delegate(of: manager)
        func fail(_ r: RegionMonitoringError.FailureReason) {
            d?.locationManager(manager, monitoringDidFailFor: region, withError: .regionMonitoringFailure(r))
        }
        guard settings.isRegionMonitoringAvailable else { return fail(.unavailable) }
        let id = region.identifier
        do { try region.engineRegion(id: id.isEmpty ? " " : id).validate() } catch {
            return fail(.invalidRegion(error))
        }
        if id.isEmpty {
            return fail(.invalidRegion(.invalidRegion(identifier: id, field: "identifier", reason: "is empty")))
        }
        if region.boundaryDistance > settings.maximumRegionMonitoringDistance {
            return fail(
                .radiusTooLarge(radius: region.boundaryDistance, maximum: settings.maximumRegionMonitoringDistance))
        }
        let replacing = appRegions[id] != nil
        // A replacement takes a fresh slot (fresh engine identifier: the region starts afresh).
        guard slots.claim(.manager(identifier: id), limit: replacing ? .max : settings.regionLimit) else {
            return fail(.limitExceeded(limit: settings.regionLimit))
        }
        if replacing {
            managerRegionStates[id] = nil
        } else {
            appRegionOrder.append(id)
        }
        appRegions[id] = region
        syncEngine()
        saveAppRegions()
        let status = settings.effectiveAuthorization
        if status.isAuthorized {
            d?.locationManager(manager, didStartMonitoringFor: region)
        } else if status == .denied || status == .restricted {
            d?.locationManager(manager, monitoringDidFailFor: region, withError: .regionMonitoringDenied(status))
        }
    }

    public func stopMonitoring(_ identifier: String) {
        guard appRegions.removeValue(forKey: identifier) != nil else { return }
        appRegionOrder.removeAll { $0 == identifier }
        slots.release(.manager(identifier: identifier))
        managerRegionStates[identifier] = nil
        stateRequests.removeAll { $0.regionID == identifier }
        syncEngine()
        saveAppRegions()
    }

    /// Persists the app's regions when the device has a store ("the location manager persists
    /// region data between launches of your app").
    func saveAppRegions() {
        guard let store else { return }
        _ = store.saveAppRegions(appRegionOrder.compactMap { appRegions[$0] })
    }

    /// Answers at once when the region's state is known (or it is not monitored: `unknown`);
    /// otherwise the request waits and is answered when the state becomes known (rule 37).
    public func requestState(_ region: MonitoredRegion, by manager: LocationManager) {
        let id = region.identifier
        guard let monitored = appRegions[id] else {
            delegate(of: manager)?.locationManager(manager, didDetermineState: .unknown, for: region)
            return
        }
        let state = knownState(of: .manager(identifier: id))
        if state == .unknown {
            // One waiting request per manager and region, however often the app asks.
            let request = StateRequest(manager: ObjectIdentifier(manager), regionID: id)
            if !stateRequests.contains(request) { stateRequests.append(request) }
        } else {
            delegate(of: manager)?.locationManager(manager, didDetermineState: state, for: monitored)
        }
    }

    /// Answers the waiting `requestState` calls for region `id`, now `state`.
    /// - Returns: the managers answered.
    func answerStateRequests(for id: String, state: RegionState) -> Set<ObjectIdentifier> {
        guard let region = appRegions[id], stateRequests.contains(where: { $0.regionID == id }) else { return [] }
        var answered: Set<ObjectIdentifier> = []
        for request in stateRequests where request.regionID == id && !answered.contains(request.manager) {
            guard let slot = managers[request.manager], let m = slot.manager, let d = slot.delegate else { continue }
            d.locationManager(m, didDetermineState: state, for: region)
            answered.insert(request.manager)
        }
        stateRequests.removeAll { $0.regionID == id }
        return answered
    }

    public func requestAuthorization(always: Bool) {
        // The prompt needs the app on screen and location services on.
        guard settings.appState == .foreground, settings.locationServicesEnabled else { return }
        var s = settings
        switch (settings.authorization, always) {
        case (.notDetermined, false):
            switch settings.promptResponse {
            case .allowAlways, .allowWhenInUse: s.authorization = .authorizedWhenInUse
            case .deny: s.authorization = .denied
            case .ignore: return
            }
        case (.notDetermined, true):
            switch settings.promptResponse {
            case .allowAlways: s.authorization = .authorizedAlways
            case .allowWhenInUse: s.authorization = .authorizedWhenInUse
            case .deny: s.authorization = .denied
            case .ignore: return
            }
        case (.authorizedWhenInUse, true):
            // One upgrade prompt per app; a refusal keeps when-in-use.
            guard !alwaysUpgradeRequested else { return }
            alwaysUpgradeRequested = true
            if settings.promptResponse == .allowAlways { s.authorization = .authorizedAlways } else { return }
        default:
            return
        }
        apply(s)
    }

    func deliverToManagers(_ e: TransitionEvent, id: String) {
        guard let region = appRegions[id] else { return }
        let state: RegionState = e.kind == .enter ? .inside : .outside
        let answered = answerStateRequests(for: id, state: state)
        if e.isInitial {
            // First determination: silent (rule 9); after a re-evaluation (reboot), only a change.
            guard let last = managerRegionStates[id] else {
                managerRegionStates[id] = state
                return
            }
            if last == state { return }
        }
        // Blocked events neither wake nor relaunch the app (rule 15).
        guard settings.deliveryBlockers.isDisjoint(with: .blocking), admitEvent(at: e.time) else { return }
        managerRegionStates[id] = state
        let event = PendingManagerEvent(regionID: region.identifier, kind: e.kind)
        let delegates = liveDelegates()
        if delegates.isEmpty {
            pendingManagerEvents.append(event) // e.g. relaunched, no manager yet
        } else {
            deliver(event, to: delegates, answered: answered)
        }
    }

    /// Calls the region-event delegate methods for `event` on `delegates`.
    /// `answered`: managers just told this state in answer to `requestState` (not told twice).
    func deliver(
        _ event: PendingManagerEvent, to delegates: [(LocationManager, any LocationManagerDelegate)],
        answered: Set<ObjectIdentifier> = []
    ) {
        guard let region = appRegions[event.regionID] else { return } // stopped meanwhile
        let state: RegionState = event.kind == .enter ? .inside : .outside
        for (m, d) in delegates {
            if event.kind == .enter, region.notifyOnEntry { d.locationManager(m, didEnterRegion: region) }
            if event.kind == .exit, region.notifyOnExit { d.locationManager(m, didExitRegion: region) }
            if !answered.contains(ObjectIdentifier(m)) { d.locationManager(m, didDetermineState: state, for: region) }
        }
    }
}
