import Foundation
import Geodesy
import Geofencing

/// Several tracks read and run through the engine on worker threads, each track ahead of the
/// merge by a few batches: the parallel half of ``Simulation``'s fleet replay.
///
/// ```swift
/// let lanes = TrackLanes(tracks: inputs, engine: engine, workers: 2)
/// defer { lanes.stop() }
/// while let record = try lanes.next(of: 3) { ... }   // track 3's records with their verdicts
/// ```
///
/// - Each track (a *lane*) has its own copy of the engine, sharing the regions (copy on
///   write; the regions are only read while fixes are processed). A subject's events depend
///   only on its own fixes, so each lane gives exactly the events, in the same order, and the
///   same rejections that the single engine gives for that subject's fixes — as long as no two
///   tracks share a subject (the caller checks).
/// - A lane's fixes go through ``Engine/process(_:subject:initialTrigger:into:)`` one by one,
///   exactly as the sequential merge does, and each record comes back with its verdict:
///   accepted with its events, or rejected with the sequential path's reason.
/// - Memory is bounded: at most ``readyBatches`` batches of ``batchSize`` records per lane
///   wait for the merge. Workers take lanes round robin from a queue of lanes that have room,
///   so all tracks advance together, as the merge consumes them in time order.
/// - The sources are used only by the worker holding their lane. ``stop()`` stops the
///   workers and waits for them: no thread outlives its sources.
final class TrackLanes: @unchecked Sendable {
    /// Records per batch: small enough that hundreds of lanes stay a few MB, large enough that
    /// a lock round trip per batch is nothing beside a batch's engine work.
    static let batchSize = 512
    /// Batches a lane may hold ready before its worker stops reading it.
    static let readyBatches = 2

    /// A record as the merge consumes it.
    enum Processed {
        /// A record the reader could not read (`TrackRecord.rejected`).
        case unreadable(position: String, reason: String)
        /// A position the engine took, and the events its fix confirmed.
        case accepted(TrackPosition, ArraySlice<TransitionEvent>)
        /// A position the engine refused, with the sequential path's reason.
        case refused(TrackPosition, reason: String)

        var position: TrackPosition? {
            switch self {
            case .unreadable: nil
            case .accepted(let p, _), .refused(let p, _): p
            }
        }
    }

    /// A record of a batch: as `Processed`, with an accepted fix's events as a range of the
    /// batch's `events` (one array per batch, not one per fix).
    private enum Item {
        case unreadable(position: String, reason: String)
        case accepted(TrackPosition, events: Range<Int>)
        case refused(TrackPosition, reason: String)
    }

    /// One batch of a lane.
    private struct Batch {
        var items: [Item] = []
        var events: [TransitionEvent] = []
        /// The source's fatal error, after `items`.
        var failure: (any Error)?
        /// The source ended after `items` (or failed).
        var last = false
        var bytesRead = 0
    }

    /// One track: its source and engine (the worker's, while it holds the lane), and the
    /// batches ready for the merge (under `condition`).
    private final class Lane {
        var source: any TrackSource
        var engine: Engine
        let subject: String
        let handle: SubjectHandle
        // Under `condition`:
        var ready: [Batch] = []
        var scheduled = false
        var finished = false
        // The consumer's own:
        var current = Batch()
        var position = 0
        var bytesRead = 0

        init(_ input: TrackInput, engine: Engine) {
            source = input.source
            var e = engine
            handle = e.handle(for: input.subject)
            self.engine = e
            subject = input.subject
        }
    }

    // Invariant: `queue`, `cancelled`, `running` and every lane's `ready`, `scheduled` and
    // `finished` are read and written only with `condition` locked; a lane's `source` and
    // `engine` only by the worker that took it from `queue` (one at a time: `scheduled`).
    private let condition = NSCondition()
    private let lanes: [Lane]
    private var queue: [Int] = []
    private var queueHead = 0
    private var cancelled = false
    private var running = 0

    /// Starts `workers` threads (no more than there are tracks) on `tracks`, each lane on its
    /// own copy of `engine`.
    init(tracks: [TrackInput], engine: Engine, workers: Int) {
        lanes = tracks.map { Lane($0, engine: engine) }
        queue = Array(lanes.indices)
        for lane in lanes { lane.scheduled = true }
        running = max(1, min(workers, lanes.count)) // a worker per lane at most
        for k in 0..<running {
            let thread = Thread { [self] in work() }
            thread.name = "geofence.lane-\(k)"
            thread.start()
        }
    }

    /// Stops the workers (each after the batch it is filling) and waits for them; call it once
    /// the lanes are no longer read (the workers keep this object alive until then).
    func stop() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// The engine of track `t`'s lane, once its records have all been consumed (its worker
    /// is done with it then).
    func engine(of t: Int) -> Engine { lanes[t].engine }

    /// Bytes of track `t` read by the time of its last consumed batch.
    func bytesRead(of t: Int) -> Int { lanes[t].bytesRead }

    /// Track `t`'s next record with its verdict, waiting for its worker if need be; nil at
    /// the end. Throws the source's fatal error after the records before it (and again after).
    func next(of t: Int) throws -> Processed? {
        let lane = lanes[t]
        while lane.position == lane.current.items.count {
            if let failure = lane.current.failure { throw failure }
            if lane.current.last { return nil }
            lane.current = take(t)
            lane.position = 0
            lane.bytesRead = lane.current.bytesRead
        }
        defer { lane.position += 1 }
        switch lane.current.items[lane.position] {
        case .unreadable(let position, let reason): return .unreadable(position: position, reason: reason)
        case .accepted(let p, let range): return .accepted(p, lane.current.events[range])
        case .refused(let p, let reason): return .refused(p, reason: reason)
        }
    }

    /// The consumer: lane `t`'s next batch, scheduling the lane again if it now has room.
    private func take(_ t: Int) -> Batch {
        let lane = lanes[t]
        condition.lock()
        defer { condition.unlock() }
        while lane.ready.isEmpty { condition.wait() }
        let batch = lane.ready.removeFirst()
        scheduleIfRoom(t)
        return batch
    }

    /// Queues lane `t` for a worker if it has room and more to read (`condition` locked).
    private func scheduleIfRoom(_ t: Int) {
        let lane = lanes[t]
        guard !lane.scheduled, !lane.finished, lane.ready.count < TrackLanes.readyBatches else { return }
        lane.scheduled = true
        queue.append(t)
        condition.broadcast()
    }

    /// A worker's loop: take a lane with room, fill one batch, hand it over.
    private func work() {
        while let t = nextLane() {
            let lane = lanes[t]
            let batch = fill(lane)
            condition.lock()
            lane.ready.append(batch)
            lane.finished = batch.last
            lane.scheduled = false
            scheduleIfRoom(t)
            condition.broadcast()
            condition.unlock()
        }
    }

    private func nextLane() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while queueHead == queue.count, !cancelled { condition.wait() }
        if cancelled {
            running -= 1
            condition.broadcast()
            return nil
        }
        let t = queue[queueHead]
        queueHead += 1
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        }
        return t
    }

    /// Reads up to ``batchSize`` records of `lane` and runs its positions through its engine,
    /// as ``Simulation``'s sequential merge would (the same checks, reasons and events).
    private func fill(_ lane: Lane) -> Batch {
        var batch = Batch()
        batch.items.reserveCapacity(TrackLanes.batchSize)
        do {
            while batch.items.count < TrackLanes.batchSize {
                guard let record = try lane.source.next() else {
                    batch.last = true
                    break
                }
                switch record {
                case .rejected(let position, let reason):
                    batch.items.append(.unreadable(position: position, reason: reason))
                case .position(let p):
                    batch.items.append(run(p, in: lane, events: &batch.events))
                }
            }
        } catch {
            batch.failure = error
            batch.last = true
        }
        batch.bytesRead = lane.source.bytesRead
        return batch
    }

    /// One position through the lane's engine (``Simulation``'s fix-by-fix checks and reasons).
    private func run(_ p: TrackPosition, in lane: Lane, events: inout [TransitionEvent]) -> Item {
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: p.latitude, longitude: p.longitude)
        } catch {
            return .refused(p, reason: error.description)
        }
        let fix = LocationFix(
            subject: lane.subject, coordinate: coordinate, horizontalAccuracy: p.accuracy,
            timestamp: p.time, speed: p.speed, course: p.course)
        let first = events.count
        do {
            try lane.engine.process(fix, subject: lane.handle, into: &events)
        } catch {
            return .refused(p, reason: Simulation.describe(error))
        }
        return .accepted(p, events: first..<events.count)
    }
}
