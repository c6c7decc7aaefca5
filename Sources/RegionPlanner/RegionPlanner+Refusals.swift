import Foundation
import Geofencing

extension RegionPlanner {
    /// A registration the monitor refused after `register` returned — Core Location's
    /// `CLMonitor` answers its limit (counted over every monitor of the app) later, as an
    /// `.unmonitored` event; ``MonitorSlotMonitor`` and `LocationManagerSlotMonitor` hand these
    /// out with `takeFailures()`.
    ///
    /// The planner forgets the slot, plans with one slot fewer when the limit was the reason
    /// (something else holds it), reports ``PlannerNotice/registrationRefused(_:at:)``, and
    /// re-plans at the next fix, so the refused region is never silently unserved.
    public func handleRefusal(_ failure: SlotMonitorError) async {
        let id = failure.identifier
        let wasReplanRegion = id == Self.replanIdentifier && replanRegistered
        guard registered.removeValue(forKey: id) != nil || wasReplanRegion else { return }
        if wasReplanRegion { replanRegistered = false }
        if case .slotLimitExceeded = failure, usableSlots > 2 { usableSlots -= 1 }
        updateSlotCount()
        noticeLog.append(.registrationRefused(failure, at: track.latest?.timestamp ?? now()))
        await waitForFix()
    }
}

extension SlotMonitorError {
    /// The identifier of the region refused.
    public var identifier: String {
        switch self {
        case .slotLimitExceeded(_, let id), .rejected(let id, _), .invalidRegion(let id, _): id
        }
    }
}
