import Foundation
import Geofencing

/// One event as the command line reports it: the engine's event plus what the writers need
/// to describe it (the confirming fix's distance past the region's boundary).
public struct ReportedEvent: Sendable, Hashable {
    /// The engine's event.
    public var event: TransitionEvent
    /// Signed distance (metres, negative inside) from the confirming fix to the region's
    /// boundary, or `nil` when the region is unknown (removed).
    public var boundaryDistance: Double?

    public init(event: TransitionEvent, boundaryDistance: Double? = nil) {
        self.event = event
        self.boundaryDistance = boundaryDistance
    }
}

/// Turns events into text, one format each. Writers stream: a header, one chunk per event
/// (in the order given), then a footer; they hold O(1) state.
///
/// ```swift
/// var writer = OutputFormat.jsonl.makeWriter()
/// var out = writer.header()
/// for e in events { out += writer.text(for: e) }
/// out += writer.footer()
/// ```
public protocol EventWriter {
    /// Text before the first event (may be empty).
    mutating func header() -> String
    /// The text for one event, including its line break.
    mutating func text(for event: ReportedEvent) -> String
    /// Text after the last event (may be empty).
    mutating func footer() -> String
    /// Appends ``text(for:)``'s text, as UTF-8, to `bytes`. Writers that can build their
    /// text as bytes implement it (the default makes the string and copies it).
    mutating func write(_ event: ReportedEvent, into bytes: inout [UInt8])
    /// Whether the text uses ``ReportedEvent/boundaryDistance`` (computing it costs a region
    /// lookup and a distance per event, so writers that ignore it say so).
    static var usesBoundaryDistance: Bool { get }
}

extension EventWriter {
    public static var usesBoundaryDistance: Bool { true }

    public mutating func write(_ event: ReportedEvent, into bytes: inout [UInt8]) {
        bytes.append(contentsOf: text(for: event).utf8)
    }
}

/// A writer whose text for an event depends on that event alone (not on the events before
/// it), so that several threads may write events' texts and the texts be joined in order: the
/// fleet replay's lanes do (``TrackLanes``), and the merge only copies bytes.
protocol IndependentEventText: EventWriter, Sendable {
    /// Appends the text for `event` to `bytes` (UTF-8): what ``EventWriter/text(for:)`` gives
    /// for it anywhere in the stream.
    func appendIndependentText(for event: ReportedEvent, to bytes: inout [UInt8])
}

extension IndependentEventText {
    /// ``appendIndependentText(for:to:)``'s text as a string.
    func independentText(for event: ReportedEvent) -> String {
        var bytes: [UInt8] = []
        appendIndependentText(for: event, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
