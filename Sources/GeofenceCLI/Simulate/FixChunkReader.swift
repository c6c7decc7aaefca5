import Foundation
import Geofencing

/// Reads a ``CheckedTrackSource`` on its own thread and hands over its fixes already cut into
/// the chunks the single-track run feeds to the engine: up to `chunkSize` fixes, a chunk ending
/// at each rejected record. The engine thread then does no work per record at all; given the
/// engine's ``RegionGeometry``, this thread also measures each chunk (``FixGeometry``), taking
/// the index queries and distances off the engine's thread.
///
/// - The chunks are exactly where the run would cut them fix by fix (it feeds when it has
///   `chunkSize` fixes, and before each rejection), and a fatal error comes after everything
///   read before it, as in ``ReadAheadTrackSource``.
/// - Memory is bounded: at most ``maximumQueuedBatches`` batches of ``chunksPerBatch`` chunks
///   wait, plus one being filled and one being consumed.
/// - Released before the end (a run stopped by an error), it tells the thread to stop and
///   joins it: no thread outlives its source.
final class FixChunkReader {
    /// A run of fixes to feed in one engine call, or a rejected record between two.
    enum Chunk {
        case fixes([LocationFix], measured: FixGeometry?)
        case rejected(position: String, reason: String)
    }

    /// Chunks per hand-over (16 full chunks of 1,024 fixes: about 1.3 MB, and up to 3 MB of
    /// their measurements in a dense city).
    static let chunksPerBatch = 16
    /// Batches that may wait before the reading thread blocks.
    static let maximumQueuedBatches = 4

    private let queue = RecordBatchQueue<Chunk>(capacity: FixChunkReader.maximumQueuedBatches)

    /// Starts reading `source` on a new thread, in chunks of up to `chunkSize` fixes, each
    /// measured against `geometry` when given.
    init(_ source: CheckedTrackSource, chunkSize: Int, measuring geometry: RegionGeometry? = nil) {
        let box = SourceBox(source)
        let queue = self.queue
        let size = max(1, chunkSize)
        let thread = Thread {
            FixChunkReader.produce(box: box, into: queue, chunkSize: size, measuring: geometry)
        }
        thread.name = "geofence.read-ahead"
        thread.start()
    }

    deinit {
        queue.cancelAndWaitForProducer()
    }

    var bytesRead: Int { queue.bytesRead }

    /// The next chunks, a batch at a time; empty at the end. Throws the source's fatal error
    /// after the chunks read before it.
    func nextBatch() throws -> [Chunk] {
        switch queue.take() {
        case .batch(let b): return b
        case .end: return []
        case .failure(let error): throw error
        }
    }

    /// The reading thread's loop: cut chunks until the end, an error or cancellation.
    private static func produce(
        box: SourceBox, into queue: RecordBatchQueue<Chunk>, chunkSize: Int, measuring geometry: RegionGeometry?
    ) {
        defer { queue.producerExited() }
        var batch: [Chunk] = []
        var fixes: [LocationFix] = []
        fixes.reserveCapacity(chunkSize)
        /// Moves the gathered fixes into the batch as one chunk.
        func cut() {
            guard !fixes.isEmpty else { return }
            batch.append(.fixes(fixes, measured: geometry?.measure(fixes[...])))
            fixes = []
            fixes.reserveCapacity(chunkSize)
        }
        /// Hands the batch over; false when cancelled.
        func handOver() -> Bool {
            defer { batch = [] }
            return batch.isEmpty || queue.put(batch, bytesRead: box.source.bytesRead)
        }
        do {
            while let record = try box.source.nextChecked() {
                switch record {
                case .fix(let fix):
                    fixes.append(fix)
                    if fixes.count == chunkSize { cut() }
                case .rejected(let position, let reason):
                    cut()
                    batch.append(.rejected(position: position, reason: reason))
                }
                if batch.count >= chunksPerBatch, !handOver() { return }
            }
            cut()
            guard handOver() else { return }
            queue.finish(with: nil)
        } catch {
            cut()
            guard handOver() else { return }
            queue.finish(with: error)
        }
    }

    /// Hands the source to the reading thread, which is then its only user.
    private final class SourceBox: @unchecked Sendable {
        let source: CheckedTrackSource
        init(_ source: CheckedTrackSource) { self.source = source }
    }
}
