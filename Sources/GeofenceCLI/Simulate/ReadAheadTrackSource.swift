import Foundation

/// A ``TrackSource`` that reads another one on its own thread, a batch of records at a time,
/// so that parsing a track overlaps with running the engine.
///
/// ```swift
/// var source = ReadAheadTrackSource(GeoFormatsTrackSource(reader: reader, path: path))
/// while let record = try source.next() { ... }     // same records, same order, same errors
/// ```
///
/// - The records, their order and a fatal error (thrown after the records before it) are
///   exactly those of the wrapped source: only *when* the work is done changes.
/// - Memory is bounded: at most ``maximumQueuedBatches`` batches of ``batchSize`` records
///   wait in the queue, plus one being filled and one being consumed.
/// - Cost: one lock round trip per batch, not per record; with two cores the wall time of a
///   run becomes about max(parse, engine) instead of their sum.
/// - The wrapped source is used only by the reading thread once this is created. When this
///   is released before the end (a run stopped by an error), the thread is told to stop and
///   joined: no thread outlives its source.
final class ReadAheadTrackSource: TrackSource {
    /// Records per batch handed from the reading thread to the consumer (about 1.6 MB).
    /// Large enough that a hand-off (a lock, and a wake-up when one side waits) is rare:
    /// on a loaded machine a woken thread can wait a whole time slice for a core.
    static let defaultBatchSize = 16_384
    /// Batches that may wait in the queue before the reading thread blocks.
    static let maximumQueuedBatches = 4

    private let queue: RecordBatchQueue<TrackRecord>
    private var batch: [TrackRecord] = []
    private var position = 0

    /// Starts reading `source` on a new thread.
    init(_ source: any TrackSource, batchSize: Int = ReadAheadTrackSource.defaultBatchSize) {
        queue = RecordBatchQueue(capacity: ReadAheadTrackSource.maximumQueuedBatches)
        let box = SourceBox(source)
        let queue = self.queue
        let size = max(1, batchSize)
        let thread = Thread {
            ReadAheadTrackSource.produce(box: box, into: queue, batchSize: size)
        }
        thread.name = "geofence.read-ahead"
        thread.start()
    }

    deinit {
        queue.cancelAndWaitForProducer()
    }

    var bytesRead: Int { queue.bytesRead }

    /// The records `next()` would return next, a whole batch at a time; empty at the end.
    /// Lets a consumer iterate an array instead of calling `next()` per record.
    func nextBatch() throws -> ArraySlice<TrackRecord> {
        if position < batch.count {
            defer { position = batch.count }
            return batch[position...]
        }
        switch queue.take() {
        case .batch(let b):
            batch = b
            position = b.count
            return b[...]
        case .end:
            batch = []
            position = 0
            return []
        case .failure(let error):
            batch = []
            position = 0
            throw error
        }
    }

    func next() throws -> TrackRecord? {
        if position < batch.count {
            defer { position += 1 }
            return batch[position]
        }
        switch queue.take() {
        case .batch(let b):
            batch = b
            position = 1
            return b[0]
        case .end:
            batch = []
            position = 0
            return nil
        case .failure(let error):
            batch = []
            position = 0
            throw error
        }
    }

    /// The reading thread's loop: fill batches until the end, an error or cancellation.
    private static func produce(box: SourceBox, into queue: RecordBatchQueue<TrackRecord>, batchSize: Int) {
        defer { queue.producerExited() }
        var buffer: [TrackRecord] = []
        buffer.reserveCapacity(batchSize)
        do {
            while let record = try box.source.next() {
                buffer.append(record)
                if buffer.count == batchSize {
                    guard queue.put(buffer, bytesRead: box.source.bytesRead) else { return }
                    buffer = []
                    buffer.reserveCapacity(batchSize)
                }
            }
            if !buffer.isEmpty { guard queue.put(buffer, bytesRead: box.source.bytesRead) else { return } }
            queue.finish(with: nil)
        } catch {
            if !buffer.isEmpty { guard queue.put(buffer, bytesRead: box.source.bytesRead) else { return } }
            queue.finish(with: error)
        }
    }

    /// Hands the wrapped source to the reading thread, which is then its only user.
    private final class SourceBox: @unchecked Sendable {
        var source: any TrackSource
        init(_ source: any TrackSource) { self.source = source }
    }
}

/// The bounded queue between a reading thread (``ReadAheadTrackSource``'s, ``FixChunkReader``'s)
/// and its consumer: batches of records.
///
/// Invariant: every mutable field is read and written only with `condition` locked.
final class RecordBatchQueue<Record>: @unchecked Sendable {
    enum Item {
        case batch([Record])
        case end
        case failure(any Error)
    }

    private let condition = NSCondition()
    private let capacity: Int
    private var batches: [[Record]] = []
    private var head = 0
    private var ending: (any Error)?? // nil: still reading; .some(nil): clean end
    private var cancelled = false
    private var exited = false
    private var bytes = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    var bytesRead: Int {
        condition.lock()
        defer { condition.unlock() }
        return bytes
    }

    /// Producer: queues `batch`, waiting while the queue is full. False when cancelled.
    func put(_ batch: [Record], bytesRead: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count - head >= capacity, !cancelled { condition.wait() }
        if cancelled { return false }
        if head > 0, head == batches.count {
            batches.removeAll(keepingCapacity: true)
            head = 0
        }
        batches.append(batch)
        bytes = bytesRead
        condition.broadcast()
        return true
    }

    /// Producer: no more batches; `error` is what ended the source, if anything.
    func finish(with error: (any Error)?) {
        condition.lock()
        ending = .some(error)
        condition.broadcast()
        condition.unlock()
    }

    /// Producer: the thread is about to return.
    func producerExited() {
        condition.lock()
        exited = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next batch, waiting for one; then the end or the error, forever after.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while head == batches.count, ending == nil { condition.wait() }
        if head < batches.count {
            let b = batches[head]
            batches[head] = []
            head += 1
            if head == batches.count {
                batches.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.broadcast()
            return .batch(b)
        }
        if case .some(.some(let error)) = ending { return .failure(error) }
        return .end
    }

    /// Consumer going away: stop the producer at its next batch and wait until it returns.
    func cancelAndWaitForProducer() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }
}
