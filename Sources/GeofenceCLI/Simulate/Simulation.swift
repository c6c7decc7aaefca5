import Foundation
import Geodesy
import Geofencing

/// Runs tracks through the engine, streaming: the library behind `geofence simulate`.
///
/// ```swift
/// var sim = try Simulation(regions: regions, policy: .precise)
/// var out = ""
/// let summary = try sim.run(tracks: [TrackInput(subject: "truck", name: "drive.gpx", source: reader)],
///                           writer: JSONLinesEventWriter(), to: &out)
/// ```
///
/// - Several tracks are several subjects; their fixes are merged by timestamp (each track is
///   read in file order), and events are written in time order: an event is held back only
///   until every other subject's fixes have passed its time.
/// - A record a reader could not parse, an invalid fix and a fix older than its subject's
///   last one are counted and reported with their line; the good ones around them are used.
/// - Memory is bounded: one record per track (with ``readsAhead``, a few batches of 16,384),
///   the engine's state, the events not yet written, and (with ``map``) a decimated copy
///   of each track.
/// - It reads no clock: the caller times the run.
public struct Simulation {
    /// How many rejections the summary keeps verbatim.
    public static let keptRejections = 5

    /// The engine, with the regions loaded.
    public internal(set) var engine: Engine
    /// When set, collects the (decimated) tracks and events for an SVG map.
    public var map: MapRecorder?
    /// Calls the progress callback every this many fixes.
    public var progressInterval = 1 << 18
    /// When true, each track is parsed on its own thread, a batch of records ahead of the
    /// engine (``ReadAheadTrackSource``; a single track's in the engine's chunks,
    /// ``FixChunkReader``): the same records, events, output and errors as a sequential run,
    /// in about max(parse, engine) wall time instead of their sum.
    public var readsAhead = false
    /// When true (the default), a single track is fed to the engine in chunks through its
    /// batch API (``Engine/process(_:subjects:measured:initialTrigger:into:)``): the same events,
    /// output and rejections as fix by fix, with less work per fix. Tests turn it off to
    /// compare.
    public var batchesSingleTrack = true
    /// When true (the default), the reading thread of a single track (``readsAhead``) also
    /// measures each chunk's positions against the regions (``FixGeometry``), so that the
    /// index queries and distances run on its core, not the engine's: the same events.
    /// Tests turn it off to compare.
    public var measuresAhead = true
    /// When true, each reported event carries its fix's distance to the region's boundary
    /// (``ReportedEvent/boundaryDistance``); ``run(tracks:writer:to:progress:)`` skips it for
    /// writers that do not print it.
    public var computesBoundaryDistance = true
    /// Threads the run may keep busy (1: the calling thread alone, and the reading thread
    /// with ``readsAhead``). With more: several tracks are read and evaluated that many at
    /// once (``TrackLanes``: tracks that are each their own subject, without a map), and a
    /// single track is evaluated on a thread of its own while the calling thread writes its
    /// events. The output, summary and rejections are the same either way.
    public var workerThreads = 1
    /// Fixes per engine call on the single-track path.
    static let chunkSize = 1_024
    /// When set, a chunk of events that ``writeAll(inOrder:upTo:summary:emit:)`` writes whole,
    /// with neither boundary distances nor a map wanted, is handed to it as it is instead of
    /// emitted event by event: the receiver must emit `ReportedEvent(event: e)` for each, in
    /// order (the same events). The pipelined run hands chunks to its output thread this way,
    /// so that the engine thread does not copy each event into a reported one.
    var chunkReceiver: (([TransitionEvent]) -> Void)?

    /// Loads `regions` into a fresh engine with `policy`.
    /// - Throws: the engine's error for the first invalid or duplicate region.
    public init(regions: [Region], policy: HysteresisPolicy) throws(GeofencingError) {
        var engine = Engine(policy: policy)
        try engine.add(contentsOf: regions)
        self.engine = engine
    }

    /// Runs the tracks and writes every event through `writer` to `output`
    /// (header, events, footer).
    public mutating func run<W: EventWriter, Out: TextOutputStream>(
        tracks: [TrackInput], writer: W, to output: inout Out,
        progress: ((SimulationProgress) -> Void)? = nil
    ) throws -> SimulationSummary {
        var w = writer
        output.write(w.header())
        let summary = try withBoundaryDistance(for: W.self) { simulation in
            if let fleet = try simulation.runFleetWritingText(
                tracks, w, progress: progress, write: { output.write(String(decoding: $0, as: UTF8.self)) })
            {
                return fleet
            }
            return try simulation.run(tracks: tracks, progress: progress) { output.write(w.text(for: $0)) }
        }
        output.write(w.footer())
        return summary
    }

    /// ``run(tracks:writer:to:progress:)`` into a file: each event's text is written as bytes
    /// straight into the output's buffer (``EventWriter/write(_:into:)``), the same text
    /// without a string per event.
    mutating func run<W: EventWriter>(
        tracks: [TrackInput], writer: W, to output: inout FileDescriptorOutput,
        progress: ((SimulationProgress) -> Void)? = nil
    ) throws -> SimulationSummary {
        var w = writer
        output.write(w.header())
        let summary = try withBoundaryDistance(for: W.self) { simulation in
            if let fleet = try simulation.runFleetWritingText(
                tracks, w, progress: progress, write: { output.write(bytes: $0) })
            {
                return fleet
            }
            return try simulation.run(tracks: tracks, progress: progress) { output.write($0, with: &w) }
        }
        output.write(w.footer())
        return summary
    }

    /// The fleet replay with each event's text written on its lane's thread, when the writer's
    /// text depends on the event alone (``IndependentEventText``) and the tracks run in
    /// parallel; `nil` otherwise.
    private mutating func runFleetWritingText<W: EventWriter>(
        _ tracks: [TrackInput], _ w: W, progress: ((SimulationProgress) -> Void)?,
        write: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws -> SimulationSummary? {
        guard let independent = w as? any IndependentEventText, canRunInParallel(tracks) else { return nil }
        let distances = computesBoundaryDistance
        return try withoutActuallyEscaping(write) { write in
            var sink = EventTextSink(
                distances: distances, render: { independent.appendIndependentText(for: $0, to: &$1) }, write: write)
            return try runInParallel(tracks: tracks, sink: &sink, progress: progress)
        }
    }

    /// Runs `body` with ``computesBoundaryDistance`` off when writer type `W` does not print
    /// the distance.
    private mutating func withBoundaryDistance<W: EventWriter, R>(
        for _: W.Type, _ body: (inout Simulation) throws -> R
    ) rethrows -> R {
        let wanted = computesBoundaryDistance
        computesBoundaryDistance = wanted && W.usesBoundaryDistance
        defer { computesBoundaryDistance = wanted }
        return try body(&self)
    }

    /// Runs the tracks, handing each event to `emit` in time order.
    /// - Throws: a track source's fatal error (e.g. an unreadable file); events before it
    ///   have been emitted.
    public mutating func run(
        tracks: [TrackInput],
        progress: ((SimulationProgress) -> Void)? = nil,
        emit: (ReportedEvent) -> Void
    ) throws -> SimulationSummary {
        if tracks.count == 1, batchesSingleTrack {
            if workerThreads > 1 { return try runSinglePipelined(tracks[0], progress: progress, emit: emit) }
            return try runSingle(tracks[0], progress: progress, emit: emit)
        }
        if canRunInParallel(tracks) {
            let distances = computesBoundaryDistance
            return try withoutActuallyEscaping(emit) { emit in
                var sink = ReportedEventSink(distances: distances, emit: emit)
                return try runInParallel(tracks: tracks, sink: &sink, progress: progress)
            }
        }
        var summary = SimulationSummary()
        summary.regionCount = engine.regionCount
        summary.subjects = tracks.map(\.subject)
        var sources: [any TrackSource] = tracks.map { readsAhead ? ReadAheadTrackSource($0.source) : $0.source }
        var heads: [TrackPosition?] = Array(repeating: nil, count: tracks.count)
        var done = Array(repeating: false, count: tracks.count)
        var lastTime = Array(repeating: -Double.infinity, count: tracks.count)
        var pending: [(seq: Int, event: TransitionEvent)] = []
        var seq = 0
        // One handle per track, so the engine does not hash the subject's name per fix, and
        // one reused event buffer, so a fix without events allocates nothing.
        var handles: [SubjectHandle] = []
        for t in tracks { handles.append(engine.handle(for: t.subject)) }
        var buffer: [TransitionEvent] = []
        var nextProgress = progressInterval

        func reject(_ track: Int, _ position: String, _ reason: String) {
            summary.reject(track: tracks[track].name, position: position, reason: reason)
        }

        /// Reads track `t` until it has a position at its head, or is done.
        func refill(_ t: Int) throws {
            while heads[t] == nil, !done[t] {
                switch try sources[t].next() {
                case .none: done[t] = true
                case .rejected(let position, let reason)?: reject(t, position, reason)
                case .position(let p)?: heads[t] = p
                }
            }
        }

        func flush(upTo watermark: Double) {
            write(&pending, upTo: watermark, summary: &summary, emit: emit)
        }

        for t in tracks.indices { try refill(t) }
        while true {
            // The track whose head is earliest (ties: the first track).
            var best = -1
            var bestTime = Double.infinity
            for t in heads.indices {
                if let h = heads[t] {
                    let ht = h.time.timeIntervalSinceReferenceDate
                    if best < 0 || ht < bestTime {
                        best = t
                        bestTime = ht
                    }
                }
            }
            if best < 0 { break }
            let p = heads[best]!
            heads[best] = nil
            summary.fixesRead += 1
            process(
                p, track: best, tracks: tracks, handle: handles[best], buffer: &buffer,
                lastTime: &lastTime, seq: &seq, pending: &pending, reject: reject)
            try refill(best)
            if !pending.isEmpty {
                // Later events of subject s are later than its last fix; subjects that are
                // done produce nothing more.
                var watermark = Double.infinity
                for t in tracks.indices where !done[t] || heads[t] != nil {
                    watermark = min(watermark, lastTime[t])
                }
                flush(upTo: watermark)
            }
            if let progress, summary.fixesRead >= nextProgress {
                nextProgress += progressInterval
                progress(
                    SimulationProgress(
                        fixesRead: summary.fixesRead, events: summary.eventCount,
                        bytesRead: sources.reduce(0) { $0 + $1.bytesRead }))
            }
        }
        flush(upTo: .infinity)
        return summary
    }

    private mutating func process(
        _ p: TrackPosition, track: Int, tracks: [TrackInput],
        handle: SubjectHandle, buffer: inout [TransitionEvent],
        lastTime: inout [Double], seq: inout Int,
        pending: inout [(seq: Int, event: TransitionEvent)],
        reject: (Int, String, String) -> Void
    ) {
        let coordinate: Coordinate
        do {
            coordinate = try Coordinate(latitude: p.latitude, longitude: p.longitude)
        } catch {
            reject(track, p.positionText, error.description)
            return
        }
        let fix = LocationFix(
            subject: tracks[track].subject, coordinate: coordinate,
            horizontalAccuracy: p.accuracy, timestamp: p.time,
            speed: p.speed, course: p.course)
        buffer.removeAll(keepingCapacity: true)
        do {
            try engine.process(fix, subject: handle, into: &buffer)
        } catch {
            reject(track, p.positionText, Simulation.describe(error))
            return
        }
        lastTime[track] = p.time.timeIntervalSinceReferenceDate
        map?.record(fix)
        for e in buffer {
            pending.append((seq, e))
            seq += 1
        }
    }

    /// One track, in chunks: positions are checked as the engine would check them (on the
    /// reading thread, with read-ahead: ``CheckedTrackSource``), so the engine's batch call
    /// never stops half-way; a chunk ends at each rejected record (so rejections keep their
    /// order), and events are written up to the chunk's last fix time (later fixes of the
    /// only subject cannot produce earlier events).
    mutating func runSingle(
        _ track: TrackInput, progress: ((SimulationProgress) -> Void)?,
        emit: (ReportedEvent) -> Void
    ) throws -> SimulationSummary {
        var summary = SimulationSummary()
        summary.regionCount = engine.regionCount
        summary.subjects = [track.subject]
        let handle = engine.handle(for: track.subject)
        var lastTime = engine.lastFix(of: track.subject)?.timestamp.timeIntervalSinceReferenceDate ?? -.infinity
        let checked = CheckedTrackSource(track.source, subject: track.subject, after: lastTime)
        let ahead =
            readsAhead
            ? FixChunkReader(checked, chunkSize: Simulation.chunkSize, measuring: measuresAhead ? engine.geometry : nil)
            : nil
        var fixes: [LocationFix] = []
        fixes.reserveCapacity(Simulation.chunkSize)
        let handles = [SubjectHandle](repeating: handle, count: Simulation.chunkSize)
        var buffer: [TransitionEvent] = []
        var pending: [(seq: Int, event: TransitionEvent)] = []
        var seq = 0
        var accepted = 0
        var nextProgress = progressInterval

        func reject(_ position: String, _ reason: String) {
            summary.reject(track: track.name, position: position, reason: reason)
        }
        func flush(upTo watermark: Double) {
            write(&pending, upTo: watermark, summary: &summary, emit: emit)
        }
        /// Feeds the gathered fixes and writes what is final.
        func feed() throws {
            defer { fixes.removeAll(keepingCapacity: true) }
            try feed(fixes[...])
        }
        /// Feeds `batch` (valid fixes, in order; `measured`: their positions, measured ahead)
        /// and writes what is final.
        func feed(_ batch: ArraySlice<LocationFix>, measured: FixGeometry? = nil) throws {
            guard !batch.isEmpty else { return }
            buffer.removeAll(keepingCapacity: true)
            try engine.process(batch, subjects: handles[0..<batch.count], measured: measured, into: &buffer)
            if map != nil { for f in batch { map?.record(f) } }
            if pending.isEmpty, writeAll(inOrder: buffer, upTo: lastTime, summary: &summary, emit: emit) {
                seq += buffer.count
                return
            }
            for e in buffer {
                pending.append((seq, e))
                seq += 1
            }
            flush(upTo: lastTime)
        }
        func consume(_ record: TrackRecord) throws {
            switch record {
            case .rejected(let position, let reason):
                try feed()
                reject(position, reason)
            case .position(let p):
                // Checked already: the coordinate is valid and the fix in order.
                accepted += 1
                lastTime = p.time.timeIntervalSinceReferenceDate
                fixes.append(
                    LocationFix(
                        subject: track.subject,
                        coordinate: Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude),
                        horizontalAccuracy: p.accuracy, timestamp: p.time,
                        speed: p.speed, course: p.course))
                if fixes.count == Simulation.chunkSize { try feed() }
                reportProgress()
            }
        }
        /// A chunk cut by the reading thread: fed whole, where fix by fix it would be fed too.
        func consume(_ chunk: FixChunkReader.Chunk) throws {
            switch chunk {
            case .rejected(let position, let reason):
                try feed()
                reject(position, reason)
            case .fixes(let chunk, let measured):
                accepted += chunk.count
                lastTime = chunk[chunk.count - 1].timestamp.timeIntervalSinceReferenceDate
                try feed(chunk[...], measured: measured)
                reportProgress()
            }
        }
        func reportProgress() {
            guard let progress, accepted >= nextProgress else { return }
            nextProgress += progressInterval
            progress(
                SimulationProgress(
                    fixesRead: accepted + checked.invalidPositions,
                    events: summary.eventCount, bytesRead: ahead?.bytesRead ?? checked.bytesRead))
        }
        /// Feeds what was gathered and writes every pending event, then rethrows.
        func fail(_ error: any Error) throws -> Never {
            try feed()
            flush(upTo: .infinity)
            summary.fixesRead = accepted + checked.invalidPositions
            throw error
        }

        if let ahead {
            while true {
                let chunks: [FixChunkReader.Chunk]
                do { chunks = try ahead.nextBatch() } catch { try fail(error) }
                if chunks.isEmpty { break }
                for c in chunks { try consume(c) }
            }
        } else {
            while true {
                let record: TrackRecord?
                do { record = try checked.next() } catch { try fail(error) }
                guard let record else { break }
                try consume(record)
            }
        }
        try feed()
        flush(upTo: .infinity)
        summary.fixesRead = accepted + checked.invalidPositions
        return summary
    }

    /// Writes the pending events up to `watermark`, in time order (ties: in the order the
    /// engine gave them), counting them in `summary`.
    mutating func write(
        _ pending: inout [(seq: Int, event: TransitionEvent)], upTo watermark: Double,
        summary: inout SimulationSummary, emit: (ReportedEvent) -> Void
    ) {
        guard !pending.isEmpty else { return }
        // One subject's events come in time order already (a fix's events lie between its
        // subject's previous fix and itself), so a check in one pass usually spares the sort.
        let inOrder = pending.withUnsafeBufferPointer { b in
            b.indices.dropFirst().allSatisfy { (b[$0 - 1].event.time, b[$0 - 1].seq) < (b[$0].event.time, b[$0].seq) }
        }
        if !inOrder { pending.sort { ($0.event.time, $0.seq) < ($1.event.time, $1.seq) } }
        var counts = KindCounts()
        defer { counts.add(to: &summary) }
        var n = 0
        while n < pending.count, pending[n].event.time.timeIntervalSinceReferenceDate <= watermark {
            report(pending[n].event, counting: &counts, emit: emit)
            n += 1
        }
        pending.removeFirst(n)
    }

    /// Writes `events` exactly as ``write(_:upTo:summary:emit:)`` would write them from an
    /// empty pending list up to a watermark at or after the last of them — which is what
    /// it writes when they are in time order: a single track's chunk, as a rule. Spares
    /// copying each event into the pending list and out again.
    /// - Returns: false, writing nothing, when `events` are not in time order or reach past
    ///   `watermark`.
    mutating func writeAll(
        inOrder events: [TransitionEvent], upTo watermark: Double,
        summary: inout SimulationSummary, emit: (ReportedEvent) -> Void
    ) -> Bool {
        let inOrder = events.withUnsafeBufferPointer { b in
            b.indices.dropFirst().allSatisfy { b[$0 - 1].time <= b[$0].time }
        }
        guard inOrder, (events.last?.time.timeIntervalSinceReferenceDate ?? -.infinity) <= watermark else {
            return false
        }
        var counts = KindCounts()
        defer { counts.add(to: &summary) }
        if let chunkReceiver, !computesBoundaryDistance, map == nil {
            for e in events { counts.count(e.kind) }
            chunkReceiver(events)
            return true
        }
        for e in events { report(e, counting: &counts, emit: emit) }
        return true
    }

    /// Counts, measures, records on the map and emits one event.
    @inline(__always)
    private mutating func report(
        _ e: TransitionEvent, counting counts: inout KindCounts, emit: (ReportedEvent) -> Void
    ) {
        counts.count(e.kind)
        let d =
            computesBoundaryDistance
            ? engine.region(identifier: e.regionID)?.signedDistance(to: e.fix.coordinate) : nil
        let reported = ReportedEvent(event: e, boundaryDistance: d)
        if map != nil { map?.record(reported) }
        emit(reported)
    }

    static func describe(_ error: GeofencingError) -> String {
        switch error {
        case .outOfOrderFix(_, let t, let last):
            "fix at \(TimestampFormat.iso8601(t)) is older than the previous fix at \(TimestampFormat.iso8601(last))"
        case .invalidFix(_, let field, let reason):
            "\(field) \(reason)"
        default:
            error.description
        }
    }
}

/// Where a running simulation is, for a progress display.
public struct SimulationProgress: Sendable, Hashable {
    public var fixesRead: Int
    public var events: Int
    /// Bytes of the track files consumed so far (0 when the sources cannot tell).
    public var bytesRead: Int
}

/// Events counted by kind, added to a summary's dictionary once per write (a hash per event
/// was 3 % of a dense-city run).
private struct KindCounts {
    var enter = 0
    var exit = 0
    var dwell = 0

    @inline(__always)
    mutating func count(_ kind: TransitionEvent.Kind) {
        switch kind {
        case .enter: enter += 1
        case .exit: exit += 1
        case .dwell: dwell += 1
        }
    }

    func add(to summary: inout SimulationSummary) {
        for (kind, count) in [(TransitionEvent.Kind.enter, enter), (.exit, exit), (.dwell, dwell)] where count > 0 {
            summary.eventsByKind[kind, default: 0] += count
        }
    }
}
