import Foundation
import Geodesy

@testable import Geofencing

// Evaluation harness, part 5: recorded tracks. Two public GPS recordings (Recorded/NOTICE.md)
// are taken as true paths at their own, irregular times — fixes 1 s to 15 min apart, a car
// and a walk round a lake — and the level's noise is added on top. Regions come from the
// recording itself, so that they sit where it is hard:
// - a *dip* circle around each stretch of five minutes: centred on the stretch, its radius
//   10–15 m short of the stretch's farthest point, so the path stays inside and dips just out
//   (the recorded-track false exits of issue 20);
// - a *through* circle centred on a point of the path, which the path crosses for real.
// The band truth decides which crossings are real and required, as for every other family.
enum RecordedTracks {
    static let names = ["cerknicko-jezero", "around-visnjan-with-car"]

    /// The recording's points and times (seconds from its first point), points without a time dropped.
    static func load(_ name: String) throws -> (times: [Double], points: [Coordinate]) {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Recorded/\(name).gpx")
        let text = try String(contentsOf: url, encoding: .utf8)
        let point = /<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)"[^>]*>(.*?)<\/trkpt>/.dotMatchesNewlines()
        let time = /<time>([^<]+)<\/time>/
        let iso = ISO8601DateFormatter()
        var times: [Double] = []
        var points: [Coordinate] = []
        for m in text.matches(of: point) {
            guard let t = m.output.3.firstMatch(of: time).flatMap({ iso.date(from: String($0.output.1)) }),
                let lat = Double(m.output.1), let lon = Double(m.output.2)
            else { continue }
            let s = t.timeIntervalSince1970
            if let last = times.last, s <= last { continue } // keep time strictly increasing
            times.append(s)
            points.append(Coordinate(uncheckedLatitude: lat, longitude: lon))
        }
        let start = times.first ?? 0
        return (times.map { $0 - start }, points)
    }

    static func make(_ name: String, level: NoiseLevel, seed: UInt64) throws -> SyntheticTrack {
        var rng = SplitMix64(
            seed: seed &+ 0xEC0D &+ UInt64(names.firstIndex(of: name)!) &* 7_919
                &+ UInt64(NoiseLevel.allCases.firstIndex(of: level)!) &* 1_299_709)
        var (times, truth) = try load(name)
        // Cell-grade fixes come at most one every 10 s.
        var kept: [Int] = []
        for i in times.indices where kept.last.map({ times[i] - times[$0] >= level.interval }) ?? true {
            kept.append(i)
        }
        times = kept.map { times[$0] }
        truth = kept.map { truth[$0] }
        let subject = "recorded-\(name)-\(level.rawValue)"
        let regions = regionsAlong(truth, times: times, subject: subject, level: level, rng: &rng)
        let sigma = level.sigma * rng.uniform(0.9, 1.1)
        var error = GPSErrorModel(sigma: sigma, rng: rng, profile: .init())
        var fixes: [LocationFix] = []
        for i in times.indices {
            let dt = i == 0 ? level.interval : times[i] - times[i - 1]
            let (q, accuracy) = error.observe(truth[i], dt: dt, elapsed: times[i])
            fixes.append(
                LocationFix(
                    subject: subject, coordinate: q, horizontalAccuracy: accuracy,
                    timestamp: SyntheticTrack.t0.addingTimeInterval(times[i])))
        }
        return SyntheticTrack(
            family: "recorded", level: level, subject: subject, times: times, truth: truth,
            fixes: fixes, regions: regions, noiseSigma: sigma)
    }

    /// A dip and a through circle for every five minutes of the recording.
    static func regionsAlong(
        _ truth: [Coordinate], times: [Double], subject: String, level: NoiseLevel,
        rng: inout SplitMix64
    ) -> [Region] {
        let smallest = level == .cell ? 500.0 : 120
        let proj = LocalProjection(origin: truth[0])
        let xy = truth.map { p -> SIMD2<Double> in
            let e = proj.project(p)
            return SIMD2(e.east, e.north)
        }
        var regions: [Region] = []
        var start = 0
        while start < xy.count {
            let end = times[start...].firstIndex { $0 >= times[start] + 300 } ?? xy.count
            defer { start = end }
            guard end - start >= 3 else { continue }
            let stretch = xy[start..<end]
            let centre = stretch.reduce(SIMD2<Double>(0, 0), +) / Double(stretch.count)
            let farthest = stretch.map { distance($0, centre) }.max()!
            let dip = farthest - rng.uniform(10, 15)
            if dip >= smallest {
                regions.append(
                    .circle(
                        identifier: "\(subject)/dip\(regions.count)",
                        center: proj.unproject(east: centre.x, north: centre.y), radius: dip))
            }
            let anchor = xy[(start + end) / 2]
            regions.append(
                .circle(
                    identifier: "\(subject)/through\(regions.count)",
                    center: proj.unproject(east: anchor.x, north: anchor.y),
                    radius: smallest * rng.uniform(1, 2)))
        }
        return regions
    }

    static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}
