import Foundation

/// Streams a CSV track: a header line naming the columns, then one fix per line.
///
///     time,latitude,longitude,accuracy,speed,course
///     2026-06-11T09:30:00Z,51.5145701,-0.1492140,14.7,1.64,85.1
///
/// Columns are found by name (case-insensitive): `time` / `timestamp`, `latitude` / `lat`,
/// `longitude` / `lon` / `lng`, and optional `accuracy` / `horizontal_accuracy`, `speed`,
/// `course` / `bearing`. Times are ISO 8601 or Unix seconds; empty optional fields are
/// unknown. A line that cannot be read is yielded as ``TrackRecord/rejected(position:reason:)``
/// with its number; blank lines are skipped. O(1) memory.
struct CSVTrackSource: TrackSource {
    private let reader: LineReader
    private let path: String
    private var columns: (time: Int, lat: Int, lon: Int, acc: Int, speed: Int, course: Int)
    private let width: Int
    private var index = 0

    init(reader: LineReader, path: String) throws(InputError) {
        self.reader = reader
        self.path = path
        var names: [String] = []
        do {
            while names.isEmpty {
                guard let header = try reader.nextLine({ String(decoding: $0, as: UTF8.self) }) else {
                    throw InputError.malformed(path: path, position: "line 1", reason: "empty file: no CSV header")
                }
                let t = header.trimmingCharacters(in: .whitespaces)
                if t.isEmpty { continue }
                names = t.split(separator: ",", omittingEmptySubsequences: false).map {
                    $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased()
                }
            }
        } catch let e as InputError {
            throw e
        } catch {
            throw .readFailed(reason: "\(error)")
        }
        func find(_ options: [String]) -> Int { names.firstIndex { options.contains($0) } ?? -1 }
        columns = (find(["time", "timestamp", "datetime", "date_time"]), find(["latitude", "lat"]),
                   find(["longitude", "lon", "lng", "long"]),
                   find(["accuracy", "horizontal_accuracy", "horizontalaccuracy", "hacc"]),
                   find(["speed"]), find(["course", "bearing", "heading"]))
        width = names.count
        let line = reader.lineNumber
        guard columns.time >= 0 else {
            throw .malformed(path: path, position: "line \(line)", reason: "the CSV header has no time column (got \(names.joined(separator: ",")))")
        }
        guard columns.lat >= 0, columns.lon >= 0 else {
            throw .malformed(path: path, position: "line \(line)", reason: "the CSV header needs latitude and longitude columns (got \(names.joined(separator: ",")))")
        }
    }

    mutating func next() throws -> TrackRecord? {
        let c = columns
        let width = self.width
        while true {
            var blank = false
            let result: TrackRecord?? = try reader.nextLine { line -> TrackRecord? in
                if line.isEmpty || line.allSatisfy({ $0 == 32 || $0 == 9 }) { blank = true; return nil }
                var time: Double?, lat: Double?, lon: Double?
                var acc: Double?, speed: Double?, course: Double?
                var count = 0
                var bad: String?
                FieldParsing.fields(line) { i, f in
                    count = i + 1
                    guard bad == nil else { return }
                    if i == c.time {
                        time = FieldParsing.time(f)
                        if time == nil { bad = "time \"\(String(decoding: f, as: UTF8.self))\" is not ISO 8601 or Unix seconds" }
                    } else if i == c.lat {
                        lat = FieldParsing.double(f)
                        if lat == nil { bad = "latitude \"\(String(decoding: f, as: UTF8.self))\" is not a number" }
                    } else if i == c.lon {
                        lon = FieldParsing.double(f)
                        if lon == nil { bad = "longitude \"\(String(decoding: f, as: UTF8.self))\" is not a number" }
                    } else if i == c.acc || i == c.speed || i == c.course {
                        guard !f.isEmpty else { return }
                        guard let v = FieldParsing.double(f) else {
                            let name = i == c.acc ? "accuracy" : i == c.speed ? "speed" : "course"
                            bad = "\(name) \"\(String(decoding: f, as: UTF8.self))\" is not a number"
                            return
                        }
                        if i == c.acc { acc = v } else if i == c.speed { speed = v } else { course = v }
                    }
                }
                let n = reader.lineNumber
                if let bad { return .rejected(position: "line \(n)", reason: bad) }
                if count != width { return .rejected(position: "line \(n)", reason: "has \(count) fields, the header has \(width)") }
                guard let time, let lat, let lon else { return .rejected(position: "line \(n)", reason: "missing time, latitude or longitude") }
                index += 1
                return .position(TrackPosition(line: n, index: index, latitude: lat, longitude: lon,
                                               time: Date(timeIntervalSince1970: time),
                                               accuracy: acc, speed: speed, course: course))
            }
            guard let r = result else { return nil }
            if blank { continue }
            return r
        }
    }
}
