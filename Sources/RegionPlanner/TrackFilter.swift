import Foundation
import Geodesy
import Geofencing

/// The planner's view of where the subject is: the newest fix that agrees with the recent
/// track, a fix that does not (a suspected glitch) until the next fixes decide, and the
/// spacing of the fixes the planner sees one after another.
///
/// A fix *agrees* with an earlier one when the implied travel is possible:
/// `distance ≤ maximumSpeed × Δt + glitchAllowance`. A fix that agrees with neither the last
/// accepted fix nor the suspect becomes the suspect; a fix that agrees with the last accepted
/// fix clears the suspect (it was a glitch); a fix that agrees with the suspect but not the
/// track accepts the jump (the subject really moved that far: a speed breach).
struct TrackFilter: Sendable {
    enum Verdict: Sendable, Equatable {
        /// Agrees with the track (or is the first fix).
        case accepted
        /// Agrees with the suspect, not with the track: the track jumped.
        case jumped
        /// Agrees with nothing: held as the suspect.
        case suspect
        /// Older than a fix already held: ignored.
        case stale
    }

    var maximumSpeed: Double
    var glitchAllowance: Double
    /// The newest accepted fix.
    private(set) var accepted: LocationFix?
    /// The newest fix seen, accepted or not.
    private(set) var latest: LocationFix?
    /// The fix seen just before ``latest`` (the cohort priming fix, docs/planner.md).
    private(set) var previous: LocationFix?
    /// A fix that agreed with nothing, until the next fixes decide.
    private(set) var suspect: LocationFix?
    /// Spacing (seconds) of the last consecutive fixes seen through ``RegionPlanner/observe(_:)``.
    private(set) var recentIntervals: [Double] = []
    static let intervalWindow = 16

    init(maximumSpeed: Double, glitchAllowance: Double) {
        self.maximumSpeed = maximumSpeed
        self.glitchAllowance = glitchAllowance
    }

    func agrees(_ a: LocationFix, _ b: LocationFix) -> Bool {
        let dt = abs(b.timestamp.timeIntervalSince(a.timestamp))
        let d = Geodesic.wgs84.inverse(a.coordinate, b.coordinate).distance
        return d <= maximumSpeed * dt + glitchAllowance + 1
    }

    /// Takes a fix in. `consecutive`: the caller sees every fix of the source now (continuous
    /// updates), so the spacing to the previous one is a fix interval.
    mutating func consider(_ fix: LocationFix, consecutive: Bool) -> Verdict {
        if let l = latest, fix.timestamp < l.timestamp { return .stale }
        if consecutive, let l = latest {
            recentIntervals.append(fix.timestamp.timeIntervalSince(l.timestamp))
            if recentIntervals.count > Self.intervalWindow { recentIntervals.removeFirst() }
        }
        if latest != fix { previous = latest }
        latest = fix
        guard let a = accepted, a != fix else {
            accepted = fix
            suspect = nil
            return .accepted
        }
        if agrees(a, fix) {
            accepted = fix
            suspect = nil
            return .accepted
        }
        if let s = suspect, agrees(s, fix) {
            accepted = fix
            suspect = nil
            return .jumped
        }
        suspect = fix
        return .suspect
    }

    /// Forgets the interval history (continuous updates stopped: the next spacing is not one).
    mutating func breakSequence() { recentIntervals = [] }

    /// Restores the position after a relaunch.
    mutating func restore(accepted: LocationFix?, previous: LocationFix?) {
        self.accepted = accepted
        self.latest = accepted
        self.previous = previous
    }
}
