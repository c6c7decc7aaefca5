import Foundation
import Geofencing

/// `--format jsonl`: one JSON object per event and line, keys in this exact order:
///
///     {"event":"enter","region":"bridge-1","subject":"truck","time":"2026-06-11T14:09:12Z",
///      "latitude":35.99581,"longitude":-78.90655,"crossedAt":"2026-06-11T14:09:01.400Z"}
///
/// `event` is `enter`, `exit` or `dwell`; `time` is the confirmation time, `crossedAt` the
/// estimated boundary crossing (for dwell: the entry), both ISO 8601 UTC; `latitude` /
/// `longitude` are the confirming fix's position. Initial-state events add `"initial":true`.
public struct JSONLinesEventWriter: EventWriter, Sendable {
    /// The date of the last time written (most events fall on the day of the one before).
    private var times = ISO8601Writer()

    public init() {}

    public mutating func header() -> String { "" }

    public mutating func text(for reported: ReportedEvent) -> String {
        independentText(for: reported)
    }

    /// Appends the event's line to `bytes`, built in place: no string per event or field
    /// (a `String` per event was a third of a dense-city run's CPU, docs/performance.md).
    public mutating func write(_ reported: ReportedEvent, into bytes: inout [UInt8]) {
        Self.appendLine(reported, times: &times, to: &bytes)
    }

    /// The most bytes of a line besides its two strings: the keys and punctuation (105), two
    /// times and two numbers.
    private static let maximumFixedBytes = 105 + 2 * ISO8601Writer.maximumBytes + 2 * JSONText.maximumNumberBytes

    static func appendLine(_ reported: ReportedEvent, times: inout ISO8601Writer, to bytes: inout [UInt8]) {
        let e = reported.event
        let room = maximumFixedBytes + JSONText.maximumStringBytes(e.regionID) + JSONText.maximumStringBytes(e.subject)
        bytes.appendLine(room: room) { line in
            line.put(#"{"event":""#)
            line.put(e.kind.literal)
            line.put(#"","region":"#)
            JSONText.writeString(e.regionID, to: &line)
            line.put(#","subject":"#)
            JSONText.writeString(e.subject, to: &line)
            line.put(#","time":""#)
            times.write(e.time, to: &line)
            line.put(#"","latitude":"#)
            JSONText.writeNumber(e.fix.coordinate.latitude, to: &line)
            line.put(#","longitude":"#)
            JSONText.writeNumber(e.fix.coordinate.longitude, to: &line)
            line.put(#","crossedAt":""#)
            times.write(e.crossedAt, to: &line)
            line.put(0x22)
            if e.isInitial { line.put(#","initial":true"#) }
            line.put("}\n")
        }
    }

    public mutating func footer() -> String { "" }

    public static var usesBoundaryDistance: Bool { false }
}

extension JSONLinesEventWriter: IndependentEventText {
    func appendIndependentText(for reported: ReportedEvent, to bytes: inout [UInt8]) {
        var times = ISO8601Writer()
        Self.appendLine(reported, times: &times, to: &bytes)
    }
}

extension TransitionEvent.Kind {
    /// ``rawValue`` as a literal, for the byte writers.
    fileprivate var literal: StaticString {
        switch self {
        case .enter: "enter"
        case .exit: "exit"
        case .dwell: "dwell"
        }
    }
}
