import Foundation
import Geofencing

extension SimulatedDevice {
    func register(_ manager: LocationManager) {
        let key = ObjectIdentifier(manager)
        if managers[key] == nil { managerOrder.append(key) }
        managers[key] = ManagerSlot(manager: manager, delegate: nil)
    }

    func setDelegate(_ delegate: (any LocationManagerDelegate)?, for manager: LocationManager) {
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

    var monitoredRegions: Set<MonitoredRegion> { Set(appRegions.values) }

    func startMonitoring(_ region: MonitoredRegion, by manager: LocationManager) {
        let d = delegate(of: manager)
        func fail(_ r: RegionMonitoringError.FailureReason) {
            d?.locationManager(manager, monitoringDidFailFor: region, withError: .regionMonitoringFailure(r))
        }
        guard settings.isRegionMonitoringAvailable else { return fail(.unavailable) }
        let id = region.identifier
        do { try region.engineRegion(id: id.isEmpty ? " " : id).validate() } catch { return fail(.invalidRegion(error)) }
        if id.isEmpty { return fail(.invalidRegion(.invalidRegion(identifier: id, field: "identifier", reason: "is empty"))) }
        if region.boundaryDistance > settings.maximumRegionMonitoringDistance {
            return fail(.radiusTooLarge(radius: region.boundaryDistance, maximum: settings.maximumRegionMonitoringDistance))
        }
        let replacing = appRegions[id] != nil
        if !replacing, monitoredRegionCount >= settings.regionLimit {
            return fail(.limitExceeded(limit: settings.regionLimit))
        }
        if replacing {
            engine.remove(identifier: Self.managerKey(id))   // the new region starts afresh
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

    func stopMonitoring(_ identifier: String) {
        guard appRegions.removeValue(forKey: identifier) != nil else { return }
        appRegionOrder.removeAll { $0 == identifier }
        engine.remove(identifier: Self.managerKey(identifier))
        managerRegionStates[identifier] = nil
        saveAppRegions()
    }

    /// Persists the app's regions when the device has a store ("the location manager persists
    /// region data between launches of your app").
    func saveAppRegions() {
        guard let store else { return }
        _ = store.saveAppRegions(appRegionOrder.compactMap { appRegions[$0] })
    }

    func requestState(_ region: MonitoredRegion, by manager: LocationManager) {
        let state: RegionState = appRegions[region.identifier] == nil
            ? .unknown : engine.state(of: subject, in: Self.managerKey(region.identifier))
        delegate(of: manager)?.locationManager(manager, didDetermineState: state, for: appRegions[region.identifier] ?? region)
    }

    func requestAuthorization(always: Bool) {
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
        if e.isInitial {
            // First determination: silent (rule 9); after a re-evaluation (reboot), only a change.
            guard let last = managerRegionStates[id] else { managerRegionStates[id] = state; return }
            if last == state { return }
        }
        guard admitEvent(at: e.time) else { return }
        guard settings.deliveryBlockers.intersection(.blocking).isEmpty else { return }
        managerRegionStates[id] = state
        let event = PendingManagerEvent(regionID: region.identifier, kind: e.kind)
        let delegates = liveDelegates()
        if delegates.isEmpty {
            pendingManagerEvents.append(event)                  // e.g. relaunched, no manager yet
        } else {
            deliver(event, to: delegates)
        }
    }

    /// Calls the region-event delegate methods for `event` on `delegates`.
    func deliver(_ event: PendingManagerEvent, to delegates: [(LocationManager, any LocationManagerDelegate)]) {
        guard let region = appRegions[event.regionID] else { return }      // stopped meanwhile
        let state: RegionState = event.kind == .enter ? .inside : .outside
        for (m, d) in delegates {
            if event.kind == .enter, region.notifyOnEntry { d.locationManager(m, didEnterRegion: region) }
            if event.kind == .exit, region.notifyOnExit { d.locationManager(m, didExitRegion: region) }
            d.locationManager(m, didDetermineState: state, for: region)
        }
    }
}
