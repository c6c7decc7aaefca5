import Foundation
import Geofencing
import RegionMonitoring

/// The system's delegate calls, turned into the package's delegate calls.
extension CoreLocationManagerBackend {
    func handle(_ callback: SystemCallback) async {
        switch callback {
        case .didEnterRegion, .didExitRegion:
            let live = liveDelegates()
            if live.isEmpty { pendingEvents.append(callback) } else { deliverRegionEvent(callback, to: live) }
        case .didDetermineState(let state, let id):
            answerState(state, for: id)
        case .didStartMonitoring(let id):
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

    /// A state answer goes to the managers that asked for it, or to every manager when nobody
    /// asked (it follows a transition); continuations waiting in ``determineState(of:)`` resume.
    func answerState(_ state: RegionState, for id: String) {
        let serial = (stateAnswers[id]?.serial ?? 0) + 1
        stateAnswers[id] = (serial, state)
        for waiter in stateWaiters.removeValue(forKey: id) ?? [] { waiter.continuation.resume(returning: state) }
        guard let region = regions[id] else { return }
        let askers = stateRequesters.removeValue(forKey: id) ?? []
        let targets = askers.isEmpty ? liveDelegates() : askers.compactMap(live)
        // A transition's state, before any delegate exists (a relaunch): kept with its event.
        if askers.isEmpty, targets.isEmpty { return pendingEvents.append(.didDetermineState(state, identifier: id)) }
        for (m, d) in targets { d.locationManager(m, didDetermineState: state, for: region) }
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
