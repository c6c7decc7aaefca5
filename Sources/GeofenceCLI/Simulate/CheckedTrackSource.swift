import Foundation
import Geodesy
import Geofencing

/// A ``TrackSource`` that checks each position the way the engine will check its fix —
/// coordinate, fields, time order within the track — and hands an invalid one on as a
/// rejected record with the reason the engine path would give.
///
/// Used by the single-track path of ``Simulation`` so that, with read-ahead, this work runs
/// on the reading thread: every `.position` it returns is a fix the engine accepts.
/// Rejected positions are counted (``invalidPositions``) because they still count as fixes
/// read.
final class CheckedTrackSource: TrackSource {
    // Not checked for exclusive access at run time (a check per record): only `next()`
    // changes them, which calls nothing that could re-enter this source, and a source is
    // read by one thread at a time.
    @exclusivity(unchecked) private var source: any TrackSource
    private let subject: String
    @exclusivity(unchecked) private var lastTime: Double
    private let counter = Counter()

    /// - Parameter after: the subject's last fix time already in the engine (`-∞` if none).
    init(_ source: any TrackSource, subject: String, after: Double) {
        self.source = source
        self.subject = subject
        self.lastTime = after
    }

    var bytesRead: Int { source.bytesRead }

    /// Positions turned into rejections so far (readable from any thread).
    var invalidPositions: Int { counter.value }

    func next() throws -> TrackRecord? {
        guard let record = try source.next() else { return nil }
        guard case .position(let p) = record else { return record }
        if let reason = check(p) {
            counter.increment()
            return .rejected(position: p.positionText, reason: reason)
        }
        return record
    }

    /// The engine's checks, in its order; `nil` when the fix will be accepted.
    private func check(_ p: TrackPosition) -> String? {
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: p.latitude, longitude: p.longitude)
        } catch {
            return error.description
        }
        let fix = LocationFix(
            subject: subject, coordinate: coordinate, horizontalAccuracy: p.accuracy,
            timestamp: p.time, speed: p.speed, course: p.course)
        do {
            try fix.validate()
        } catch {
            return Simulation.describe(error)
        }
        let t = p.time.timeIntervalSinceReferenceDate
        if t < lastTime {
            return Simulation.describe(
                .outOfOrderFix(
                    subject: subject, timestamp: p.time,
                    lastTimestamp: Date(timeIntervalSinceReferenceDate: lastTime)))
        }
        lastTime = t
        return nil
    }

    /// A count written by the reading thread and read by the consumer.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() {
            lock.lock()
            count += 1
            lock.unlock()
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }
}
