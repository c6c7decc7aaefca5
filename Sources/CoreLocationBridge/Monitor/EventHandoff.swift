import Foundation

/// A stream of events with one reader at a time, the newest: each ``stream()`` call finishes
/// the previous reader's stream and receives from then on; events yielded while no reader
/// exists wait for the next one, in order.
///
/// Core Location lets a process open a `CLMonitor` name once, so a monitor is shared by
/// whoever opens the name again in that process (a new backend after the old one went away);
/// this hands its events to the newest.
///
/// Public for ``SystemConditionMonitor`` implementations (the Apple one uses it).
///
/// Sendable: the reader and the waiting events are read and written under `lock` only.
public final class EventHandoff<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var reader: AsyncStream<Element>.Continuation?
    private var waiting: [Element] = []
    private var finished = false

    public init() {}

    /// A new stream for the newest reader; the previous reader's stream ends.
    public func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let previous: AsyncStream<Element>.Continuation? = lock.withLock {
            defer {
                reader = continuation
                for element in waiting { continuation.yield(element) }
                waiting = []
                if finished { continuation.finish() }
            }
            return reader
        }
        previous?.finish()
        return stream
    }

    /// Hands `element` to the reader, or keeps it for the next one.
    public func yield(_ element: Element) {
        lock.withLock {
            if let reader { reader.yield(element) } else { waiting.append(element) }
        }
    }

    /// No more events: the reader's stream, and every later one, ends.
    public func finish() {
        lock.withLock {
            finished = true
            reader?.finish()
        }
    }
}
