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
    public init() {}

    public mutating func header() -> String { "" }

    public mutating func text(for reported: ReportedEvent) -> String {
        independentText(for: reported)
    }

    /// Appends the event's line to `bytes`, built in place: no string per event or field
    /// (a `String` per event was a third of a dense-city run's CPU, docs/performance.md).
    public mutating func write(_ reported: ReportedEvent, into bytes: inout [UInt8]) {
        Self.appendLine(reported, to: &bytes)
    }

    static func appendLine(_ reported: ReportedEvent, to bytes: inout [UInt8]) {
        let e = reported.event
        bytes.append(contentsOf: #"{"event":""#.utf8)
        bytes.append(contentsOf: e.kind.rawValue.utf8)
        bytes.append(contentsOf: #"","region":"#.utf8)
        JSONText.appendString(e.regionID, to: &bytes)
        bytes.append(contentsOf: #","subject":"#.utf8)
        JSONText.appendString(e.subject, to: &bytes)
        bytes.append(contentsOf: #","time":""#.utf8)
        TimestampFormat.appendISO8601(e.time, to: &bytes)
        bytes.append(contentsOf: #"","latitude":"#.utf8)
        JSONText.appendNumber(e.fix.coordinate.latitude, to: &bytes)
        bytes.append(contentsOf: #","longitude":"#.utf8)
        JSONText.appendNumber(e.fix.coordinate.longitude, to: &bytes)
        bytes.append(contentsOf: #","crossedAt":""#.utf8)
        TimestampFormat.appendISO8601(e.crossedAt, to: &bytes)
        bytes.append(0x22)
        if e.isInitial { bytes.append(contentsOf: #","initial":true"#.utf8) }
        bytes.append(contentsOf: "}\n".utf8)
    }

    public mutating func footer() -> String { "" }

    public static var usesBoundaryDistance: Bool { false }
}

extension JSONLinesEventWriter: IndependentEventText {
    func independentText(for reported: ReportedEvent) -> String {
        var bytes: [UInt8] = []
        Self.appendLine(reported, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
