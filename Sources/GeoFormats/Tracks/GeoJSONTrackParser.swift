/// Reads GeoJSON tracks. The document is parsed whole (JSON has no line structure to
/// stream on); points are then produced one by one.
///
/// Accepted, in a FeatureCollection or as a single Feature:
/// - `LineString` features with a `times` or `coordTimes` property: an array of times, one
///   per position (ISO 8601 strings or Unix seconds); `MultiLineString` with an array of
///   such arrays (as `togeojson` writes);
/// - `Point` features with a `time` (or `timestamp`) property, and optionally
///   `accuracy` (or `horizontalAccuracy`), `speed`, `course`, `elevation`.
/// A third coordinate is the elevation. Errors name the feature index and point index.
final class GeoJSONTrackParser {
    private let source: ByteSource
    private var results: [Result<TrackPoint, TrackParseError>] = []
    private var head = 0
    private var loaded = false

    init(source: ByteSource) {
        self.source = source
    }

    func next() -> Result<TrackPoint, TrackParseError>? {
        if !loaded {
            loaded = true
            load()
        }
        guard head < results.count else {
            results = []
            return nil
        }
        defer { head += 1 }
        return results[head]
    }

    private func error(_ position: TrackParseError.Position, _ reason: TrackParseError.Reason, fatal: Bool = false) {
        results.append(.failure(TrackParseError(format: .geojson, position: position, reason: reason, isFatal: fatal)))
    }

    private func load() {
        let bytes = source.readAll()
        if let e = source.readError {
            error(.input, .unreadable(e), fatal: true)
            return
        }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = JSONParser.location(of: error.offset, in: bytes)
            self.error(.line(line, column: column), .invalidJSON(error.message), fatal: true)
            return
        }
        switch root["type"]?.stringValue {
        case "FeatureCollection":
            guard let features = root["features"]?.arrayValue else {
                error(.input, .invalidGeoJSON("a FeatureCollection needs a 'features' array"), fatal: true)
                return
            }
            for (index, feature) in features.enumerated() { read(feature, index: index) }
        case "Feature":
            read(root, index: 0)
        case let other:
            error(
                .input,
                .invalidGeoJSON(
                    "top-level type is \(other.map { "'\($0)'" } ?? "missing"), expected FeatureCollection or Feature"),
                fatal: true)
        }
    }

    private static func seconds(_ v: JSONValue?) -> Double?? {
        switch v {
        case nil, .null?: return .some(nil)
        case .number(let n)?: return .some(n)
        case .string(var s)?: return s.withUTF8 { Timestamp.parseSeconds($0) }.map { .some($0) } ?? nil
        default: return nil
        }
    }

    private static func number(_ v: JSONValue?) -> Double?? {
        switch v {
        case nil, .null?: .some(nil)
        case .number(let n)?: .some(n)
        default: nil
        }
    }

    private func read(_ feature: JSONValue, index: Int) {
        guard feature["type"]?.stringValue == "Feature" else {
            error(.feature(index), .invalidGeoJSON("not a Feature"))
            return
        }
        guard let geometry = feature["geometry"], let type = geometry["type"]?.stringValue else {
            error(.feature(index), .invalidGeoJSON("missing geometry"))
            return
        }
        let properties = feature["properties"]?.objectValue ?? [:]
        switch type {
        case "Point":
            guard let time = properties["time"] ?? properties["timestamp"] else {
                error(.feature(index), .missingValue("time"))
                return
            }
            guard let s = GeoJSONTrackParser.seconds(time), let seconds = s else {
                error(.feature(index), .invalidTime(time.stringValue ?? time.description))
                return
            }
            var extras: [Double?] = []
            for names in [["accuracy", "horizontalAccuracy"], ["speed"], ["course"], ["elevation"]] {
                let v = names.lazy.compactMap { properties[$0] }.first
                guard let n = GeoJSONTrackParser.number(v) else {
                    error(.feature(index), .invalidNumber(field: names[0], text: v?.description ?? ""))
                    return
                }
                extras.append(n)
            }
            emit(
                geometry["coordinates"], seconds: seconds, accuracy: extras[0], speed: extras[1], course: extras[2],
                elevation: extras[3], position: .feature(index))
        case "LineString", "MultiLineString":
            let times = properties["times"] ?? properties["coordTimes"]
            guard let times else {
                error(.feature(index), .missingValue("times"))
                return
            }
            let lines: [JSONValue]
            let timeLines: [JSONValue]
            if type == "LineString" {
                lines = [geometry["coordinates"] ?? .null]
                timeLines = [times]
            } else {
                lines = geometry["coordinates"]?.arrayValue ?? []
                timeLines = times.arrayValue ?? []
                guard lines.count == timeLines.count else {
                    error(.feature(index), .timeCountMismatch(coordinates: lines.count, times: timeLines.count))
                    return
                }
            }
            var pointIndex = 0
            for (line, lineTimes) in zip(lines, timeLines) {
                guard let positions = line.arrayValue else {
                    error(.feature(index), .invalidGeoJSON("coordinates are not an array"))
                    return
                }
                guard let stamps = lineTimes.arrayValue else {
                    error(.feature(index), .invalidGeoJSON("times are not an array"))
                    return
                }
                guard positions.count == stamps.count else {
                    error(.feature(index), .timeCountMismatch(coordinates: positions.count, times: stamps.count))
                    return
                }
                for (position, stamp) in zip(positions, stamps) {
                    if let s = GeoJSONTrackParser.seconds(stamp), let seconds = s {
                        emit(
                            position, seconds: seconds, accuracy: nil, speed: nil, course: nil, elevation: nil,
                            position: .feature(index, point: pointIndex))
                    } else {
                        error(.feature(index, point: pointIndex), .invalidTime(stamp.stringValue ?? stamp.description))
                    }
                    pointIndex += 1
                }
            }
        default:
            error(.feature(index), .invalidGeoJSON("geometry type '\(type)' is not a track (use LineString or Point)"))
        }
    }

    private func emit(
        _ coordinates: JSONValue?, seconds: Double, accuracy: Double?, speed: Double?, course: Double?,
        elevation: Double?, position: TrackParseError.Position
    ) {
        guard let c = coordinates?.arrayValue, c.count >= 2, c.count <= 3,
            let lon = c[0].doubleValue, let lat = c[1].doubleValue
        else {
            error(
                position,
                .invalidGeoJSON("a position must be [longitude, latitude] or [longitude, latitude, elevation]"))
            return
        }
        let ele = elevation ?? (c.count == 3 ? c[2].doubleValue : nil)
        switch PointValidation.make(
            seconds: seconds, latitude: lat, longitude: lon, elevation: ele,
            accuracy: accuracy, speed: speed, course: course)
        {
        case .success(let p): results.append(.success(p))
        case .failure(let r): error(position, r)
        }
    }
}
