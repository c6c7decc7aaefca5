import Foundation
import Geodesy
import Geofencing

@testable import GeofenceCLI

/// A fresh temporary directory for one test.
func temporaryDirectory() throws -> String {
    let dir = NSTemporaryDirectory() + "geofence-cli-tests-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Writes `text` to `name` in `dir` and returns the path.
func write(_ text: String, to name: String, in dir: String) throws -> String {
    let path = (dir as NSString).appendingPathComponent(name)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

let utc = TimeZone(identifier: "UTC")!

/// The seed example: a 2,000 m region on the Bund.
let shanghaiCenter = try! Coordinate(latitude: 31.239394, longitude: 121.499781)
let shanghaiRegion = Region.circle(identifier: "shanghai", center: shanghaiCenter, radius: 2_000)

let shanghaiGeoJSON = """
    {"type":"FeatureCollection","features":[
     {"type":"Feature","geometry":{"type":"Point","coordinates":[121.499781,31.239394]},
      "properties":{"id":"shanghai","radius":2000,"name":"The Bund"}}]}
    """

/// Unix time of 2026-06-11T02:00:00Z.
let t0 = 1_781_143_200.0

/// Seconds, latitudes: outside at 31.259394 for 60 s, then inside at 31.240394 for 60 s,
/// one fix every 5 s, accuracy 10 m.
func shanghaiFixes() -> [(t: Double, lat: Double)] {
    var out: [(t: Double, lat: Double)] = []
    for i in 0..<24 {
        let t: Double = t0 + Double(i) * 5
        out.append((t: t, lat: i < 12 ? 31.259394 : 31.240394))
    }
    return out
}

func iso(_ t: Double) -> String { TimestampFormat.iso8601(secondsSince1970: t) }

func shanghaiCSV() -> String {
    "time,latitude,longitude,accuracy\n"
        + shanghaiFixes().map { "\(iso($0.t)),\($0.lat),121.499781,10" }.joined(separator: "\n") + "\n"
}

func positions(_ fixes: [(t: Double, lat: Double)], lon: Double = 121.499781, accuracy: Double? = 10) -> [TrackPosition]
{
    fixes.enumerated().map { i, f in
        TrackPosition(
            line: i + 2, index: i + 1, latitude: f.lat, longitude: lon,
            time: Date(timeIntervalSince1970: f.t), accuracy: accuracy)
    }
}

/// Runs `tracks` against `regions` and returns the jsonl text and the summary.
func simulate(
    _ regions: [Region], _ tracks: [TrackInput], policy: HysteresisPolicy = .precise
) throws -> (String, SimulationSummary) {
    var sim = try Simulation(regions: regions, policy: policy)
    var out = ""
    let summary = try sim.run(tracks: tracks, writer: JSONLinesEventWriter(), to: &out)
    return (out, summary)
}

/// Each jsonl line as a dictionary.
func parseLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
}
