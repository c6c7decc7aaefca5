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
public struct JSONLinesEventWriter: EventWriter {
    public init() {}

    public mutating func header() -> String { "" }

    public mutating func text(for reported: ReportedEvent) -> String {
        let e = reported.event
        var s = "{\"event\":\"\(e.kind.rawValue)\",\"region\":\(JSONText.string(e.regionID))"
        s += ",\"subject\":\(JSONText.string(e.subject))"
        s += ",\"time\":\"\(TimestampFormat.iso8601(e.time))\""
        s += ",\"latitude\":\(JSONText.number(e.fix.coordinate.latitude))"
        s += ",\"longitude\":\(JSONText.number(e.fix.coordinate.longitude))"
        s += ",\"crossedAt\":\"\(TimestampFormat.iso8601(e.crossedAt))\""
        if e.isInitial { s += ",\"initial\":true" }
        s += "}\n"
        return s
    }

    public mutating func footer() -> String { "" }

    public static var usesBoundaryDistance: Bool { false }
}
