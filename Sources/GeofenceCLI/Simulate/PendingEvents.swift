import Geofencing

/// The fleet merge's events held back until they are final: written by time, ties in the order
/// they were held (the order of ``Simulation``'s sequential merge).
///
/// ```swift
/// var pending = PendingEvents<ReportedEvent>()
/// pending.hold(time: t, kind: .enter, payload: reported)
/// pending.release(upTo: watermark, summary: &summary) { entries in for e in entries { emit(e.payload) } }
/// ```
///
/// Holding is O(1) and notes whether the entries are still in order (one subject's events
/// always are; several subjects' events nearly always are), so a release that writes nothing
/// is O(1) and one that writes k of n entries is O(k + n) without a sort, O(n log n) with one.
struct PendingEvents<Payload> {
    struct Entry {
        /// The event's time (seconds since the reference date).
        var time: Double
        /// Its place in the order events were held.
        var seq: Int
        var kind: TransitionEvent.Kind
        var payload: Payload
    }

    private(set) var entries: [Entry] = []
    private var inOrder = true
    private var nextSeq = 0

    var isEmpty: Bool { entries.isEmpty }

    /// Holds an event; later holds come later among events of the same time.
    mutating func hold(time: Double, kind: TransitionEvent.Kind, payload: Payload) {
        if let last = entries.last, (last.time, last.seq) >= (time, nextSeq) { inOrder = false }
        entries.append(Entry(time: time, seq: nextSeq, kind: kind, payload: payload))
        nextSeq += 1
    }

    /// Replaces each held event's payload with `transform(payload)`, in the order they are written.
    mutating func mapPayloads(_ transform: (Payload) -> Payload) {
        for i in entries.indices { entries[i].payload = transform(entries[i].payload) }
    }

    /// Hands the events up to `watermark` (time ≤ watermark), in order, to `write` in one call,
    /// counts them in `summary`, and forgets them. Returns how many there were.
    @discardableResult
    mutating func release(
        upTo watermark: Double, summary: inout SimulationSummary, _ write: (ArraySlice<Entry>) -> Void
    ) -> Int {
        guard !entries.isEmpty else { return 0 }
        if !inOrder {
            entries.sort { ($0.time, $0.seq) < ($1.time, $1.seq) }
            inOrder = true
        }
        var n = 0
        var counts = (enter: 0, exit: 0, dwell: 0)
        while n < entries.count, entries[n].time <= watermark {
            switch entries[n].kind {
            case .enter: counts.enter += 1
            case .exit: counts.exit += 1
            case .dwell: counts.dwell += 1
            }
            n += 1
        }
        guard n > 0 else { return 0 }
        write(entries[..<n])
        entries.removeFirst(n)
        for (kind, count) in [(TransitionEvent.Kind.enter, counts.enter), (.exit, counts.exit), (.dwell, counts.dwell)]
        where count > 0 {
            summary.eventsByKind[kind, default: 0] += count
        }
        return n
    }
}
