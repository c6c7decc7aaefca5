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
        if case .failure(let rejection) = check(p) { return rejection.record }
        return record
    }

    /// The next record as the engine path takes it: the fix itself, built once here (on the
    /// reading thread, with read-ahead), or a rejection; `nil` at the end.
    func nextChecked() throws -> CheckedRecord? {
        guard let record = try source.next() else { return nil }
        switch record {
        case .rejected(let position, let reason): return .rejected(position: position, reason: reason)
        case .position(let p):
            switch check(p) {
            case .success(let fix): return .fix(fix)
            case .failure(let rejection): return rejection.checked
            }
        }
    }

    /// The engine's checks, in its order: the fix it will accept, or why not (counted).
    private func check(_ p: TrackPosition) -> Result<LocationFix, Rejection> {
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: p.latitude, longitude: p.longitude)
        } catch {
            return reject(p, error.description)
        }
        let fix = LocationFix(
            subject: subject, coordinate: coordinate, horizontalAccuracy: p.accuracy,
            timestamp: p.time, speed: p.speed, course: p.course)
        do {
            try fix.validate()
        } catch {
            return reject(p, Simulation.describe(error))
        }
        let t = p.time.timeIntervalSinceReferenceDate
        if t < lastTime {
            return reject(
                p,
                Simulation.describe(
                    .outOfOrderFix(
                        subject: subject, timestamp: p.time,
                        lastTimestamp: Date(timeIntervalSinceReferenceDate: lastTime))))
        }
        lastTime = t
        return .success(fix)
    }

    private func reject(_ p: TrackPosition, _ reason: String) -> Result<LocationFix, Rejection> {
        counter.increment()
        return .failure(Rejection(position: p.positionText, reason: reason))
    }

    /// A position the engine would refuse.
    private struct Rejection: Error {
        var position: String
        var reason: String
        var record: TrackRecord { .rejected(position: position, reason: reason) }
        var checked: CheckedRecord { .rejected(position: position, reason: reason) }
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

/// What ``CheckedTrackSource/nextChecked()`` yields: a fix the engine accepts, or a record
/// refused (by the reader or by the engine's checks) with where and why.
enum CheckedRecord {
    case fix(LocationFix)
    case rejected(position: String, reason: String)
}
