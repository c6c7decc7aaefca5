import Foundation
import Geofencing
import RegionMonitoring

/// The system's delegate calls, turned into the package's delegate calls.
extension CoreLocationManagerBackend {
    func handle(_ callback: SystemCallback) async {
        switch callback {
        case .didEnterRegion(let id), .didExitRegion(let id):
            delayedRegions[id] = nil
            deliverAndHold(callback, to: liveDelegates())
            await holdBackgroundTime()
        case .didDetermineState(let state, let id):
            answerState(state, for: id)
        case .didStartMonitoring(let id):
            delayedRegions[id] = nil
            guard let region = regions[id] else { break }
            for (m, d) in registrantOrAll(id) { d.locationManager(m, didStartMonitoringFor: region) }
        case .monitoringDidFail(let id, let error):
            await reportFailure(of: id, error)
        case .didFailWithError:
            answerLocation(nil)
        case .didChangeAuthorization(let status):
            if !status.isAuthorized { answerAllWaiting() }
            for (m, d) in liveDelegates() { d.locationManager(m, didChangeAuthorization: status) }
        case .didUpdateLocations(let samples):
            let fixes = samples.compactMap { $0.locationFix(subject: subject) }
            guard let newest = fixes.last else { break }
            answerLocation(newest)
            endBackgroundTime()
            for (m, d) in liveDelegates() { d.locationManager(m, didUpdateLocations: fixes) }
        }
        handled.finishOne()
    }

    /// Calls `didEnterRegion` / `didExitRegion` (the system applies the notify flags), or the
    /// `didDetermineState` that followed one.
    func deliverRegionEvent(_ callback: SystemCallback, to delegates: [(LocationManager, any LocationManagerDelegate)])
    {
        switch callback {
        case .didEnterRegion(let id):
            guard let region = regions[id] else { return }
            for (m, d) in delegates { d.locationManager(m, didEnterRegion: region) }
        case .didExitRegion(let id):
            guard let region = regions[id] else { return }
            for (m, d) in delegates { d.locationManager(m, didExitRegion: region) }
        case .didDetermineState(let state, let id):
            guard let region = regions[id] else { return }
            for (m, d) in delegates { d.locationManager(m, didDetermineState: state, for: region) }
        default:
            return
        }
    }

    /// Delivers a region callback to `delegates` and keeps it for delegates set later.
    func deliverAndHold(_ callback: SystemCallback, to delegates: [(LocationManager, any LocationManagerDelegate)]) {
        deliverRegionEvent(callback, to: delegates)
        held.keep(callback, at: now(), deliveredTo: delegates.map(\.1))
    }

    /// A state answer goes to the managers that asked for it, or to every manager when nobody
    /// asked (it follows a transition); continuations waiting in ``determineState(of:)`` resume.
    func answerState(_ state: RegionState, for id: String) {
        let serial = (stateAnswers[id]?.serial ?? 0) + 1
        stateAnswers[id] = (serial, state)
        for waiter in stateWaiters.removeValue(forKey: id) ?? [] { waiter.continuation.resume(returning: state) }
        guard let region = regions[id] else { return }
        let askers = stateRequesters.removeValue(forKey: id) ?? []
        guard askers.isEmpty else {
            for (m, d) in askers.compactMap(live) { d.locationManager(m, didDetermineState: state, for: region) }
            return
        }
        // A transition's state: held with its event for delegates set later.
        deliverAndHold(.didDetermineState(state, identifier: id), to: liveDelegates())
    }

    /// Authorisation is gone: every waiting state and location request is answered now.
    func answerAllWaiting() {
        let waiting = stateWaiters
        stateWaiters = [:]
        for (_, list) in waiting { for w in list { w.continuation.resume(returning: .unknown) } }
        answerLocation(nil)
    }

    func answerLocation(_ fix: LocationFix?) {
        locationAnswers = (locationAnswers.serial + 1, fix)
        let waiters = locationWaiters
        locationWaiters = []
        for w in waiters { w.continuation.resume(returning: fix) }
    }

    func reportFailure(of id: String?, _ error: SystemError) async {
        if let kind = MonitoringDelay.Kind(error) { return reportDelay(kind, of: id) }
        let region = id.flatMap { regions[$0] }
        let mapped: RegionMonitoringError =
            switch error {
            case .regionMonitoringDenied, .denied: .regionMonitoringDenied(await system.authorizationStatus)
            default: .regionMonitoringFailure(.reportedBySystem(code: error.code))
            }
        let targets = id.map(registrantOrAll) ?? liveDelegates()
        // A refused region is not monitored; a denied one stays registered until permission
        // comes. Either way no state answer is coming for it now.
        if let id {
            for waiter in stateWaiters.removeValue(forKey: id) ?? [] { waiter.continuation.resume(returning: .unknown) }
            if case .regionMonitoringFailure = mapped {
                regions[id] = nil
                registrants[id] = nil
            }
        }
        for (m, d) in targets { d.locationManager(m, monitoringDidFailFor: region, withError: mapped) }
    }

    /// Codes 6 and 7: the system keeps the region and its events will come, so it stays in
    /// this backend's table (and counted); the delay is a notice, not a failure.
    func reportDelay(_ kind: MonitoringDelay.Kind, of id: String?) {
        if let id, regions[id] != nil { delayedRegions[id] = kind }
        delayContinuation.yield(MonitoringDelay(identifier: id, kind: kind))
    }

    func live(_ key: ObjectIdentifier) -> (LocationManager, any LocationManagerDelegate)? {
        guard let slot = managers[key], let m = slot.manager, let d = slot.delegate else { return nil }
        return (m, d)
    }

    func liveDelegates() -> [(LocationManager, any LocationManagerDelegate)] {
        managerOrder.compactMap(live)
    }

    /// The manager that registered `id` if it is alive, otherwise every manager.
    func registrantOrAll(_ id: String) -> [(LocationManager, any LocationManagerDelegate)] {
        if let key = registrants[id], let target = live(key) { return [target] }
        return liveDelegates()
    }
}
