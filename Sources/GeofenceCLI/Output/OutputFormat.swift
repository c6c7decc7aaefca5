import ArgumentParser
import Foundation

/// How `geofence simulate` prints events.
///
/// - `jsonl`: one JSON object per line, `{"event","region","subject","time","latitude",
///   "longitude","crossedAt"}` (the default when standard output is not a terminal);
/// - `table`: aligned columns with local clock times and distances (the default on a terminal);
/// - `geojson`: a FeatureCollection with one `Point` feature per event.
public enum OutputFormat: String, CaseIterable, Sendable, ExpressibleByArgument {
    case jsonl
    case table
    case geojson

    /// The default for a destination: `table` for a terminal, `jsonl` otherwise.
    public static func defaultFormat(isTerminal: Bool) -> OutputFormat {
        isTerminal ? .table : .jsonl
    }

    /// A fresh writer for this format.
    public func makeWriter(timeZone: TimeZone = .current) -> any EventWriter {
        switch self {
        case .jsonl: JSONLinesEventWriter()
        case .table: TableEventWriter(timeZone: timeZone)
        case .geojson: GeoJSONEventWriter()
        }
    }
}
