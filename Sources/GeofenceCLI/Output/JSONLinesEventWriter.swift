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

    public mutating func footer() -> String { "" }

    public static var usesBoundaryDistance: Bool { false }
}

extension JSONLinesEventWriter: IndependentEventText {
    func independentText(for reported: ReportedEvent) -> String {
        let e = reported.event
        var s = ""
        s.reserveCapacity(160 + e.regionID.utf8.count + e.subject.utf8.count)
        s += "{\"event\":\""
        s += e.kind.rawValue
        s += "\",\"region\":"
        s += JSONText.string(e.regionID)
        s += ",\"subject\":"
        s += JSONText.string(e.subject)
        s += ",\"time\":\""
        s += TimestampFormat.iso8601(e.time)
        s += "\",\"latitude\":"
        s += JSONText.number(e.fix.coordinate.latitude)
        s += ",\"longitude\":"
        s += JSONText.number(e.fix.coordinate.longitude)
        s += ",\"crossedAt\":\""
        s += TimestampFormat.iso8601(e.crossedAt)
        s += "\""
        if e.isInitial { s += ",\"initial\":true" }
        s += "}\n"
        return s
    }
}
