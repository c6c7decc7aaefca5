import Foundation
import Geofencing

/// A region event's background window: the event goes to the app at once (with a recent
/// position or none); the position that may follow is awaited inside a background task held no
/// longer than the time left allows.
extension CoreLocationManagerBackend {
    /// The system's last location while it is at most ``locationFreshness`` old; never waits,
    /// never requests. A stale location is not the event's: `nil` then.
    public func eventLocation() async -> LocationFix? {
        guard let sample = await system.location, let fix = sample.locationFix(subject: subject),
            now().timeIntervalSince(fix.timestamp) <= locationFreshness
        else { return nil }
        return fix
    }

    /// A region event arrived: a background task is begun (unless one is held) and ended at
    /// the first position, or once ``BackgroundWindow/hold(remaining:)`` passes.
    func holdBackgroundTime() async {
        guard let background, heldTask == nil else { return }
        holdSerial += 1
        let serial = holdSerial
        heldTask = HeldTask(serial: serial, id: nil)
        let id = await background.beginTask(named: "Region event")
        // Ended while beginning (a position came), or none granted.
        guard heldTask?.serial == serial, let id else {
            if let id { await background.endTask(id) }
            if heldTask?.serial == serial { heldTask = nil }
            return
        }
        heldTask?.id = id
        let seconds = backgroundWindow.hold(remaining: await background.timeRemaining)
        expire(after: seconds) { backend in backend.endBackgroundTime(serial) }
    }

    /// Ends the held task: a position came (`serial` nil), or the hold `serial` is up.
    func endBackgroundTime(_ serial: Int? = nil) {
        guard let held = heldTask, serial == nil || held.serial == serial else { return }
        heldTask = nil
        guard let id = held.id, let background else { return }
        Task { await background.endTask(id) }
    }

    /// The background task held for a region event.
    struct HeldTask {
        let serial: Int
        var id: Int?
    }
}
