import Foundation
import Geofencing

/// Where the fleet merge puts an accepted fix's events until they are final, and how it
/// writes them: the events as values, or their text made on the lanes.
protocol FleetEventSink {
    /// The form the lanes make events into for this sink.
    var form: TrackLanes.EventForm { get }
    /// Whether no event is held.
    var isEmpty: Bool { get }
    /// Holds the events `range` of a lane's batch `events`, after those held before.
    mutating func hold(_ range: Range<Int>, of events: borrowing TrackLanes.LaneEvents)
    /// Writes the held events up to `watermark` (by time, ties in the order held), counting
    /// them in `summary`.
    mutating func release(upTo watermark: Double, summary: inout SimulationSummary)
}

/// The fleet's events as values, handed to `emit` one by one.
struct ReportedEventSink: FleetEventSink {
    let form: TrackLanes.EventForm
    let emit: (ReportedEvent) -> Void
    private var pending = PendingEvents<ReportedEvent>()

    /// `distances`: whether each event carries its boundary distance.
    init(distances: Bool, emit: @escaping (ReportedEvent) -> Void) {
        form = .reported(distances: distances)
        self.emit = emit
    }

    var isEmpty: Bool { pending.isEmpty }

    mutating func hold(_ range: Range<Int>, of events: borrowing TrackLanes.LaneEvents) {
        for e in events.reported[range] {
            pending.hold(time: e.event.time.timeIntervalSinceReferenceDate, kind: e.event.kind, payload: e)
        }
    }

    mutating func release(upTo watermark: Double, summary: inout SimulationSummary) {
        pending.release(upTo: watermark, summary: &summary) { entries in
            for e in entries { emit(e.payload) }
        }
    }
}

/// The fleet's events as text made on the lanes (``TrackLanes/EventForm/text(distances:render:)``):
/// the merge copies each event's bytes once when it holds it, and hands the released ones to
/// `write` in one piece per release (valid during the call).
struct EventTextSink: FleetEventSink {
    let form: TrackLanes.EventForm
    let write: (UnsafeBufferPointer<UInt8>) -> Void
    /// The held events' texts; each held event names its range.
    private var bytes: [UInt8] = []
    private var pending = PendingEvents<Range<Int>>()

    init(
        distances: Bool, render: @escaping @Sendable (ReportedEvent, inout [UInt8]) -> Void,
        write: @escaping (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        form = .text(distances: distances, render: render)
        self.write = write
    }

    var isEmpty: Bool { pending.isEmpty }

    /// Bytes of text kept for held events (and released ones not yet dropped).
    var bufferedBytes: Int { bytes.count }

    mutating func hold(_ range: Range<Int>, of events: borrowing TrackLanes.LaneEvents) {
        var start = range.lowerBound == 0 ? 0 : events.marks[range.lowerBound - 1].end
        for mark in events.marks[range] {
            let at = bytes.count
            bytes.append(contentsOf: events.text[start..<mark.end])
            pending.hold(time: mark.time, kind: mark.kind, payload: at..<bytes.count)
            start = mark.end
        }
    }

    mutating func release(upTo watermark: Double, summary: inout SimulationSummary) {
        pending.release(upTo: watermark, summary: &summary) { entries in
            // Usually the released texts lie one after the other in `bytes`: one copy.
            var contiguous = true
            var end = entries.first!.payload.lowerBound
            for e in entries {
                if e.payload.lowerBound != end { contiguous = false }
                end = e.payload.upperBound
            }
            if contiguous {
                let start = entries.first!.payload.lowerBound
                bytes.withUnsafeBufferPointer { write(UnsafeBufferPointer(rebasing: $0[start..<end])) }
            } else {
                var gathered: [UInt8] = []
                for e in entries { gathered.append(contentsOf: bytes[e.payload]) }
                gathered.withUnsafeBufferPointer(write)
            }
        }
        if pending.isEmpty {
            bytes.removeAll(keepingCapacity: true)
        } else if bytes.count > 1 << 20 {
            compact()
        }
    }

    /// Drops the texts of released events once they are most of `bytes`.
    private mutating func compact() {
        let live = pending.entries.reduce(0) { $0 + $1.payload.count }
        guard live < bytes.count / 2 else { return }
        var kept: [UInt8] = []
        kept.reserveCapacity(live)
        pending.mapPayloads { range in
            let at = kept.count
            kept.append(contentsOf: bytes[range])
            return at..<kept.count
        }
        bytes = kept
    }
}
