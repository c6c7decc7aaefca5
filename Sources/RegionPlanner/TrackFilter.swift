import Foundation
import Geodesy
import Geofencing

/// The planner's view of where the subject is: the newest fix that agrees with the recent
/// track, a fix that does not (a suspected glitch) until the next fixes decide, and the
/// spacing of the fixes the app receives one after another.
///
/// A monitor event's fix is judged like any other, but it neither ends nor starts a fix
/// interval: the event may reach the app any time after its fix (a late event), so the time
/// from it to the next fix says nothing about how often fixes come. And an event's fix newer
/// than the last fix the app received shows that the app does not get every fix: the next
/// fix it receives ends no interval either.
///
/// A fix *agrees* with an earlier one when the implied travel is possible:
/// `distance ≤ maximumSpeed × Δt + glitchAllowance`. A fix that agrees with neither the last
/// accepted fix nor the suspect becomes the suspect; a fix that agrees with the last accepted
/// fix clears the suspect (it was a glitch); a fix that agrees with the suspect but not the
/// track accepts the jump (the subject really moved that far: a speed breach).
struct TrackFilter: Sendable, Hashable, Codable {
    enum Verdict: String, Sendable, Hashable, Codable {
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
    /// Spacing (seconds) of the last consecutive fixes received through ``RegionPlanner/observe(_:)``.
    private(set) var recentIntervals: [Double] = []
    /// The newest fix the app received since continuous updates last stopped: where the next
    /// interval is measured from.
    private(set) var lastReceived: LocationFix?
    /// The interval the last received fix ended, if it ended one.
    private(set) var receivedInterval: Double?
    /// The newest event fix later than ``lastReceived``: a position the app did not receive.
    private(set) var unreceived: Date?
    /// A speed above ``maximumSpeed`` that the track has shown (a jump confirmed by a fix that
    /// continued it), while the fixes keep it up; `nil` otherwise.
    private(set) var observedSpeed: Double?
    /// Accepted fixes within the stated speed since the last faster one.
    private var slowFixes = 0
    /// The verdict on ``latest``: the same fix handed in again (an event's fix, then the same
    /// position as a location update) gets it again and changes nothing.
    private(set) var latestVerdict: Verdict = .accepted
    static let intervalWindow = 16

    init(maximumSpeed: Double, glitchAllowance: Double) {
        self.maximumSpeed = maximumSpeed
        self.glitchAllowance = glitchAllowance
    }

    func agrees(_ a: LocationFix, _ b: LocationFix) -> Bool {
        let dt = abs(b.timestamp.timeIntervalSince(a.timestamp))
        let d = Geodesic.wgs84.inverse(a.coordinate, b.coordinate).distance
        return d <= speedBound * dt + glitchAllowance + 1
    }

    /// The speed bound in force: the stated one, or the faster speed the track has shown.
    var speedBound: Double { max(maximumSpeed, observedSpeed ?? 0) }

    /// Whether `fix` continues the motion from `a` to `s` (constant velocity, within one step
    /// of `v·Δt + J`): then `s` was no glitch but a subject faster than the bound — two
    /// consecutive fixes off the track, on one line, are the track.
    func continues(_ a: LocationFix, _ s: LocationFix, _ fix: LocationFix) -> Bool {
        let span = s.timestamp.timeIntervalSince(a.timestamp)
        let dt = fix.timestamp.timeIntervalSince(s.timestamp)
        guard span > 0, dt > 0 else { return false }
        let g = Geodesic.wgs84.inverse(a.coordinate, s.coordinate)
        let predicted = Geodesic.wgs84.direct(from: s.coordinate, azimuth: g.azimuth2, distance: g.distance * dt / span)
        let miss = Geodesic.wgs84.inverse(predicted.coordinate, fix.coordinate).distance
        return miss <= maximumSpeed * dt + glitchAllowance + 1
    }

    static func speed(_ a: LocationFix, _ b: LocationFix) -> Double {
        let dt = b.timestamp.timeIntervalSince(a.timestamp)
        return dt > 0 ? Geodesic.wgs84.inverse(a.coordinate, b.coordinate).distance / dt : 0
    }

    /// Follows the speed the accepted track shows above the bound; forgets it after
    /// ``intervalWindow`` accepted fixes within the bound.
    private mutating func noteSpeed(from a: LocationFix, to fix: LocationFix, jumped: Bool) {
        let v = Self.speed(a, fix)
        if v > maximumSpeed, jumped || observedSpeed != nil {
            observedSpeed = max(observedSpeed ?? 0, v)
            slowFixes = 0
        } else if observedSpeed != nil {
            slowFixes += 1
            if slowFixes >= Self.intervalWindow { observedSpeed = nil }
        }
    }

    /// Takes in a fix the app received. `consecutive`: the app receives every fix of the source
    /// now (continuous updates), so the spacing to the previous fix it received is a fix
    /// interval (``receivedInterval``).
    mutating func consider(_ fix: LocationFix, consecutive: Bool) -> Verdict {
        receivedInterval = nil
        if let l = latest, fix.timestamp < l.timestamp { return .stale }
        // A position between the last fix received and this one came only with an event.
        let missed = unreceived.map { $0 < fix.timestamp } ?? false
        unreceived = nil
        if consecutive, !missed, let r = lastReceived, fix.timestamp > r.timestamp {
            let interval = fix.timestamp.timeIntervalSince(r.timestamp)
            recentIntervals.append(interval)
            if recentIntervals.count > Self.intervalWindow { recentIntervals.removeFirst() }
            receivedInterval = interval
        }
        lastReceived = fix
        return judgeOnce(fix)
    }

    /// Takes in the fix a monitor event carries: judged as a received fix is, but it is no
    /// fix the app received, so it measures no interval.
    mutating func consider(eventFix fix: LocationFix) -> Verdict {
        if let l = latest, fix.timestamp < l.timestamp { return .stale }
        if let r = lastReceived, fix.timestamp > r.timestamp { unreceived = fix.timestamp }
        return judgeOnce(fix)
    }

    /// The verdict on `fix`; the same fix handed in again gets the same one.
    private mutating func judgeOnce(_ fix: LocationFix) -> Verdict {
        if let l = latest, l == fix { return latestVerdict }
        let verdict = judge(fix)
        latestVerdict = verdict
        return verdict
    }

    private mutating func judge(_ fix: LocationFix) -> Verdict {
        if latest != fix { previous = latest }
        latest = fix
        guard let a = accepted, a != fix else {
            accepted = fix
            suspect = nil
            return .accepted
        }
        if agrees(a, fix) {
            noteSpeed(from: a, to: fix, jumped: false)
            accepted = fix
            suspect = nil
            return .accepted
        }
        if let s = suspect, agrees(s, fix) || continues(a, s, fix) {
            noteSpeed(from: s, to: fix, jumped: true)
            accepted = fix
            suspect = nil
            return .jumped
        }
        suspect = fix
        return .suspect
    }

    /// Forgets the interval history (continuous updates stopped: the next spacing is not one).
    mutating func breakSequence() {
        recentIntervals = []
        lastReceived = nil
        receivedInterval = nil
        unreceived = nil
    }

    /// Restores the position after a relaunch.
    mutating func restore(accepted: LocationFix?, previous: LocationFix?) {
        self.accepted = accepted
        self.latest = accepted
        self.previous = previous
    }
}
