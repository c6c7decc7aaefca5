import Foundation
import Geofencing

extension LocationFix {
    /// Whether `other` is the same observation: the same time and the same position, bit for
    /// bit (a retry re-sends the same text, and the store gives back the exact `Double`s). The
    /// accuracy, speed and course are left out: they describe the observation and cannot make a
    /// second one. Two fixes at the same time in different places are two observations (two
    /// providers answering in the same second), both kept. The device is the caller's to
    /// compare: fixes are always held per device.
    func isSameObservation(as other: LocationFix) -> Bool {
        timestamp == other.timestamp && coordinate.latitude == other.coordinate.latitude
            && coordinate.longitude == other.coordinate.longitude
    }
}

/// A tracking app's batch split against the device's last stored fix: the part already stored
/// or too old, and the fixes that are new.
///
/// Apps retry a batch whose answer was lost, and may append the fixes queued since: `[A, B]`
/// then `[A, B, C]`. Everything up to the last fix equal to the stored one (``LocationFix/
/// isSameObservation(as:)``) was sent before and is dropped: those at the stored fix's time
/// are `duplicate`, the older ones `older`. After it, or when the batch does not hold the
/// stored fix, a fix older than it is `older`; one at the same time in another place is new.
struct RetriedFixes: Equatable {
    var new: [LocationFix]
    var older = 0
    var duplicate = 0

    /// `fixes` (in time order) against `last`, the device's last stored fix.
    init(_ fixes: [LocationFix], after last: LocationFix) {
        let resent = fixes.lastIndex { $0.isSameObservation(as: last) }
        let sent = resent.map { fixes[...$0] } ?? []
        duplicate = sent.count { $0.timestamp == last.timestamp }
        older = sent.count - duplicate
        new = []
        for fix in fixes[(resent.map { $0 + 1 } ?? 0)...] {
            if fix.timestamp < last.timestamp { older += 1 } else { new.append(fix) }
        }
    }
}
