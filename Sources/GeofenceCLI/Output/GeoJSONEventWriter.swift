import Foundation
import Geofencing

/// `--format geojson`: a GeoJSON (RFC 7946) FeatureCollection, one `Point` feature per
/// event at the confirming fix, with the jsonl fields as properties (plus
/// `boundaryDistanceMeters`). Streams: features are written as they come.
public struct GeoJSONEventWriter: EventWriter {
    private var count = 0

    public init() {}

    public mutating func header() -> String {
        "{\"type\":\"FeatureCollection\",\"features\":[\n"
    }

    public mutating func text(for reported: ReportedEvent) -> String {
        let e = reported.event
        var s = count == 0 ? "" : ",\n"
        count += 1
        s += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":["
        s += "\(JSONText.number(e.fix.coordinate.longitude)),\(JSONText.number(e.fix.coordinate.latitude))]},"
        s += "\"properties\":{\"event\":\"\(e.kind.rawValue)\",\"region\":\(JSONText.string(e.regionID))"
        s += ",\"subject\":\(JSONText.string(e.subject))"
        s += ",\"time\":\"\(TimestampFormat.iso8601(e.time))\""
        s += ",\"crossedAt\":\"\(TimestampFormat.iso8601(e.crossedAt))\""
        if let d = reported.boundaryDistance {
            s += ",\"boundaryDistanceMeters\":\(JSONText.number((d * 10).rounded() / 10))"
        }
        if e.isInitial { s += ",\"initial\":true" }
        s += "}}"
        return s
    }

    public mutating func footer() -> String { "\n]}\n" }
}
