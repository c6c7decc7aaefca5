import Foundation
import Geodesy
import Geofencing

/// Several tracks read and run through the engine on worker threads, each track ahead of the
/// merge by a few batches: the parallel half of ``Simulation``'s fleet replay.
///
/// ```swift
/// let lanes = TrackLanes(tracks: inputs, engine: engine, workers: 2, form: .reported(distances: true))
/// defer { lanes.stop() }
/// while let record = try lanes.next(of: 3) { ... }   // track 3's records with their verdicts
/// lanes.withEvents(of: 3) { $0.reported[range] }     // an accepted record's events
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
/// - The events are made into what the merge writes on the lane's worker (``EventForm``):
///   with their boundary distances, and, for a writer whose text depends on the event alone,
///   as text, so that the merge's share of the work is ordering and copying bytes.
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

    /// What a lane makes of each event its engine gives, on the lane's worker.
    enum EventForm: Sendable {
        /// The event with its boundary distance (when `distances`), for the merge to emit.
        case reported(distances: Bool)
        /// The event's text as `render` appends it (with its boundary distance when
        /// `distances`), for the merge to copy: `render` must depend on the event alone.
        case text(distances: Bool, render: @Sendable (ReportedEvent, inout [UInt8]) -> Void)
    }

    /// The events of one batch, in the lanes' ``EventForm``.
    struct LaneEvents {
        /// `.reported`: the events.
        var reported: [ReportedEvent] = []
        /// `.text`: every event's text, one after the other.
        var text: [UInt8] = []
        /// `.text`: per event, its time and kind and where its text ends in `text`.
        var marks: [TextMark] = []
    }

    /// Where an event's text ends in ``LaneEvents/text`` (it starts where the one before ends).
    struct TextMark {
        /// The event's time (seconds since the reference date).
        var time: Double
        var kind: TransitionEvent.Kind
        var end: Int
    }

    /// A record as the merge consumes it.
    enum Processed {
        /// A record the reader could not read (`TrackRecord.rejected`).
        case unreadable(position: String, reason: String)
        /// A position the engine took (its time, seconds since the reference date), and the
        /// indices of the events its fix confirmed among the lane's current ``LaneEvents``
        /// (``withEvents(of:_:)``, valid until the lane's next record is taken).
        case accepted(time: Double, events: Range<Int>)
        /// A position the engine refused, where it is in its file, with the sequential path's reason.
        case refused(time: Double, position: String, reason: String)

        /// The time by which the merge orders the record (nil: none, it is not a position).
        var time: Double? {
            switch self {
            case .unreadable: nil
            case .accepted(let t, _), .refused(let t, _, _): t
            }
        }
    }

    /// One batch of a lane.
    private struct Batch {
        var items: [Processed] = []
        var events = LaneEvents()
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
        /// The engine's events for one fix (reused).
        var scratch: [TransitionEvent] = []
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
    private let form: EventForm
    private var queue: [Int] = []
    private var queueHead = 0
    private var cancelled = false
    private var running = 0

    /// Starts `workers` threads (no more than there are tracks) on `tracks`, each lane on its
    /// own copy of `engine`, making each event into `form`.
    init(tracks: [TrackInput], engine: Engine, workers: Int, form: EventForm) {
        lanes = tracks.map { Lane($0, engine: engine) }
        self.form = form
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
        return lane.current.items[lane.position]
    }

    /// Calls `body` with the events of track `t`'s current batch: those that the record last
    /// taken with ``next(of:)`` names.
    func withEvents<R>(of t: Int, _ body: (borrowing LaneEvents) -> R) -> R {
        body(lanes[t].current.events)
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

    /// One position through the lane's engine (``Simulation``'s fix-by-fix checks and reasons),
    /// its events added to `events` in the lanes' form.
    private func run(_ p: TrackPosition, in lane: Lane, events: inout LaneEvents) -> Processed {
        let time = p.time.timeIntervalSinceReferenceDate
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: p.latitude, longitude: p.longitude)
        } catch {
            return .refused(time: time, position: p.positionText, reason: error.description)
        }
        let fix = LocationFix(
            subject: lane.subject, coordinate: coordinate, horizontalAccuracy: p.accuracy,
            timestamp: p.time, speed: p.speed, course: p.course)
        lane.scratch.removeAll(keepingCapacity: true)
        do {
            try lane.engine.process(fix, subject: lane.handle, into: &lane.scratch)
        } catch {
            return .refused(time: time, position: p.positionText, reason: Simulation.describe(error))
        }
        let first = form.count(of: events)
        for e in lane.scratch {
            // As ``Simulation/write(_:upTo:summary:emit:)`` measures it; the lane's engine
            // holds the same regions.
            let distance =
                form.distances ? lane.engine.region(identifier: e.regionID)?.signedDistance(to: e.fix.coordinate) : nil
            form.add(ReportedEvent(event: e, boundaryDistance: distance), to: &events)
        }
        return .accepted(time: time, events: first..<form.count(of: events))
    }
}

extension TrackLanes.EventForm {
    /// Whether each event carries its boundary distance.
    var distances: Bool {
        switch self {
        case .reported(let distances), .text(let distances, _): distances
        }
    }

    /// How many events `events` holds.
    func count(of events: borrowing TrackLanes.LaneEvents) -> Int {
        switch self {
        case .reported: events.reported.count
        case .text: events.marks.count
        }
    }

    /// Adds `reported` to `events` in this form.
    func add(_ reported: ReportedEvent, to events: inout TrackLanes.LaneEvents) {
        switch self {
        case .reported:
            events.reported.append(reported)
        case .text(_, let render):
            render(reported, &events.text)
            events.marks.append(
                TrackLanes.TextMark(
                    time: reported.event.time.timeIntervalSinceReferenceDate, kind: reported.event.kind,
                    end: events.text.count))
        }
    }
}
