import Foundation
import Geofencing

/// The initial state held like a crossing (docs/monitoring.md rule 36; ``InitialStateHold``).
extension SimulatedDevice {
    /// Turns the engine's events for one fix or tick into the events that count: a first
    /// determination starts a hold instead of being reported; a hold whose run is long enough
    /// becomes the region's first determination; a transition confirmed while its region's
    /// first state was still held is that first determination. In time order, exits before
    /// entries at the same time (the engine's order).
    func holdInitialStates(_ events: [TransitionEvent], fix: LocationFix?, at date: Date) -> [TransitionEvent] {
        let policy = engine.policy
        var out: [TransitionEvent] = []
        let decided = Set(events.map(\.regionID))
        if !initialHolds.isEmpty {
            let pending = fix == nil ? [] : Set(engine.pendingRegions(of: subject))
            for key in initialHolds.keys.sorted() where !decided.contains(key) {
                guard var hold = initialHolds[key] else { continue }
                let counted: Date? =
                    if let fix {
                        hold.see(fix, pendingAway: pending.contains(key), policy: policy)
                    } else {
                        hold.see(tick: date, policy: policy)
                    }
                if let counted {
                    initialHolds[key] = nil
                    out.append(hold.confirmedEvent(at: counted))
                } else {
                    initialHolds[key] = hold
                }
            }
        }
        for e in events where e.kind != .dwell {
            if e.isInitial {
                let hold = InitialStateHold(e)
                if let now = hold.confirmedNow(at: e.time, policy) {
                    out.append(hold.confirmedEvent(at: now))
                } else {
                    initialHolds[e.regionID] = hold
                }
            } else if initialHolds.removeValue(forKey: e.regionID) != nil {
                var first = e
                first.isInitial = true
                out.append(first)
            } else {
                out.append(e)
            }
        }
        return out.sorted { ($0.time, $0.kind.rank) < ($1.time, $1.kind.rank) }
    }
}

extension TransitionEvent.Kind {
    /// Exits before entries at the same time, as the engine orders them.
    fileprivate var rank: Int { self == .exit ? 0 : 1 }
}
