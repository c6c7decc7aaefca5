import Foundation
import Geofencing

extension Simulation {
    /// The single-track run with its output on the calling thread and everything else on an
    /// engine thread (which reads ahead on a third, with ``readsAhead``): parsing, evaluation
    /// and output each on their own core. The engine thread runs the very same single-track
    /// run on this simulation (moved to it, and back at the end), handing its events and
    /// progress over in batches, so the output, summary, rejections and errors are exactly
    /// those of the run on one thread.
    mutating func runSinglePipelined(
        _ track: TrackInput, progress: ((SimulationProgress) -> Void)?,
        emit: (ReportedEvent) -> Void
    ) throws -> SimulationSummary {
        let stage = EngineStage(self, track: track, reportsProgress: progress != nil)
        let thread = Thread { stage.run() }
        thread.name = "geofence.engine"
        thread.start()
        while let item = stage.queue.take() {
            switch item {
            case .events(let events): for e in events { emit(e) }
            case .chunk(let events): for e in events { emit(ReportedEvent(event: e)) }
            case .progress(let p): progress?(p)
            }
        }
        self = stage.finish()
        return try stage.result.get()
    }
}

/// The engine thread of ``Simulation/runSinglePipelined(_:progress:emit:)``.
///
/// Invariant: `simulation`, `track` and `result` are used by the engine thread alone until
/// it has closed `queue`, and by the calling thread alone after (`finish` waits for that).
private final class EngineStage: @unchecked Sendable {
    /// Events per hand-over.
    static let batchSize = 1_024

    let queue = HandOverQueue<Item>(capacity: 8)
    private var simulation: Simulation
    private let track: TrackInput
    private let reportsProgress: Bool
    var result: Result<SimulationSummary, any Error> = .failure(CancellationError())

    enum Item {
        case events([ReportedEvent])
        /// A chunk's events as the engine gave them (``Simulation/chunkReceiver``).
        case chunk([TransitionEvent])
        case progress(SimulationProgress)
    }

    init(_ simulation: Simulation, track: TrackInput, reportsProgress: Bool) {
        self.simulation = simulation
        self.track = track
        self.reportsProgress = reportsProgress
    }

    func run() {
        let batcher = EventBatcher(queue)
        let progress: ((SimulationProgress) -> Void)? = reportsProgress ? { batcher.progress($0) } : nil
        simulation.chunkReceiver = { batcher.handOver($0) }
        defer { simulation.chunkReceiver = nil }
        result = Result {
            try simulation.runSingle(track, progress: progress) { batcher.add($0) }
        }
        batcher.flush()
        queue.close()
    }

    /// The simulation back, once the engine thread is done.
    func finish() -> Simulation {
        queue.waitUntilClosed()
        return simulation
    }
}

/// Gathers the engine thread's events into batches for the output thread.
///
/// A class rather than a variable captured by the callbacks: a captured variable that an
/// escaping closure (the progress callback) also holds lives in a box whose every access,
/// one per event, was checked for exclusivity at run time.
/// Invariant: used by the engine thread alone (`batch` is therefore not checked).
private final class EventBatcher {
    private let queue: HandOverQueue<EngineStage.Item>
    @exclusivity(unchecked) private var batch: [ReportedEvent] = []

    init(_ queue: HandOverQueue<EngineStage.Item>) {
        self.queue = queue
        batch.reserveCapacity(EngineStage.batchSize)
    }

    func add(_ event: ReportedEvent) {
        batch.append(event)
        if batch.count == EngineStage.batchSize { flush() }
    }

    /// Hands the events gathered so far to the output thread, then `chunk` whole.
    func handOver(_ chunk: [TransitionEvent]) {
        flush()
        if !chunk.isEmpty { queue.put(.chunk(chunk)) }
    }

    /// Hands the events gathered so far to the output thread, then `p`.
    func progress(_ p: SimulationProgress) {
        flush()
        queue.put(.progress(p))
    }

    /// Hands the events gathered so far to the output thread.
    func flush() {
        guard !batch.isEmpty else { return }
        queue.put(.events(batch))
        batch = []
        batch.reserveCapacity(EngineStage.batchSize)
    }
}

/// A bounded queue from one producer thread to one consumer, closed by the producer.
///
/// Invariant: `items`, `head` and `closed` are read and written only with `condition` locked.
final class HandOverQueue<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private let capacity: Int
    private var items: [Item] = []
    private var head = 0
    private var closed = false

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Producer: adds `item`, waiting while the queue is full.
    func put(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity { condition.wait() }
        items.append(item)
        condition.broadcast()
    }

    /// Producer: nothing more comes.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Consumer: the next item, waiting for one; nil once the queue is closed and empty.
    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count, !closed { condition.wait() }
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        condition.broadcast()
        return item
    }

    func waitUntilClosed() {
        condition.lock()
        while !closed { condition.wait() }
        condition.unlock()
    }
}
