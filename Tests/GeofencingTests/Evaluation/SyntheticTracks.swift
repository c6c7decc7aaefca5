import Foundation
import Geodesy

@testable import Geofencing

// Evaluation harness, part 1: deterministic synthetic tracks — a true path, regions, and
// fixes = truth + GPS error (`GPSErrorModel`). The ground truth is worked out from the true
// path alone (`BandTruth`), never from what the engine does.
//
// Families (this file: movers; HardTracks.swift: the adversarial ones):
// - walking (1.4 m/s, stops of 1–5 min), cycling (5 m/s), driving (14 m/s): legs of
//   0.4–2.5 km with turns, ending with 5 min at rest; circular regions placed across the path
//   so every crossing is clear (≥ 50 m past, ≥ 60 s on the new side; the path starts ≥ 300 m
//   and ends ≥ 150 m from every boundary).

/// How good the fixes are: σ of the Gauss-Markov error per axis, and one fix every
/// `interval` seconds. `cell` is cell-grade positioning (σ 60 m, accuracy ≈ 90 m, 10 s).
enum NoiseLevel: String, CaseIterable, Sendable {
    case good, urban, poor, cell

    var sigma: Double {
        switch self {
        case .good: 5
        case .urban: 15
        case .poor: 30
        case .cell: 60
        }
    }
    var interval: Double { self == .cell ? 10 : 1 }
}

enum Mode: String, CaseIterable, Sendable {
    case walking, cycling, driving

    var speed: Double {
        switch self {
        case .walking: 1.4
        case .cycling: 5
        case .driving: 14
        }
    }
    var duration: Double {
        switch self {
        case .walking: 2_700
        case .cycling: 2_100
        case .driving: 1_500
        }
    }
}

struct SyntheticTrack: Sendable {
    /// The table row it counts in (e.g. "walking", "boundary walker").
    var family: String
    var level: NoiseLevel
    var subject: String
    var times: [Double]
    var truth: [Coordinate]
    var fixes: [LocationFix]
    var regions: [Region]
    var noiseSigma: Double

    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    /// Fixes along `truth` (sampled at `times`) with the level's noise.
    static func observe(
        _ truth: [Coordinate], times: [Double], subject: String, sigma: Double,
        interval: Double, rng: SplitMix64, profile: GPSErrorModel.Profile = .init()
    ) -> [LocationFix] {
        var error = GPSErrorModel(sigma: sigma, rng: rng, profile: profile)
        return zip(times, truth).map { t, p in
            let (q, acc) = error.observe(p, dt: interval, elapsed: t)
            return LocationFix(
                subject: subject, coordinate: q, horizontalAccuracy: acc, timestamp: t0.addingTimeInterval(t))
        }
    }

    static func make(mode: Mode, level: NoiseLevel, index: Int, seed: UInt64) -> SyntheticTrack {
        var rng = SplitMix64(
            seed: seed &+ UInt64(index) &* 7_919 &+ UInt64(Mode.allCases.firstIndex(of: mode)!) &* 104_729
                &+ UInt64(NoiseLevel.allCases.firstIndex(of: level)!) &* 1_299_709)
        let origin = Coordinate(uncheckedLatitude: rng.uniform(-60, 60), longitude: rng.uniform(-180, 180))
        let proj = LocalProjection(origin: origin)
        // True path in local metres.
        var xy: [SIMD2<Double>] = []
        var times: [Double] = []
        let dt = level.interval
        var p = SIMD2<Double>(0, 0)
        var heading = rng.uniform(0, 2 * .pi)
        var t = 0.0
        while t < mode.duration {
            let leg = rng.uniform(400, 2_500) * (mode == .walking ? 0.5 : 1)
            let v = mode.speed * rng.uniform(0.8, 1.2)
            let steps = Int(leg / v)
            for _ in 0..<steps where t < mode.duration {
                if times.isEmpty || t >= times[times.count - 1] + dt {
                    xy.append(p)
                    times.append(t)
                }
                p += SIMD2(sin(heading), cos(heading)) * v
                t += 1
            }
            if mode == .walking, rng.nextUnit() < 0.3 { // a stop
                for _ in 0..<Int(rng.uniform(60, 300)) where t < mode.duration {
                    if t >= times[times.count - 1] + dt {
                        xy.append(p)
                        times.append(t)
                    }
                    t += 1
                }
            }
            heading += rng.uniform(0.5, 2.0) * (rng.nextUnit() < 0.5 ? -1 : 1)
        }
        for _ in 0..<300 { // rest at the end
            if t >= times[times.count - 1] + dt {
                xy.append(p)
                times.append(t)
            }
            t += 1
        }
        let truth = xy.map { proj.unproject(east: $0.x, north: $0.y) }
        let subject = "\(mode.rawValue)-\(level.rawValue)-\(index)"

        // Regions: cell-grade fixes only resolve larger ones.
        let radii = level == .cell ? (500.0, 3_000.0) : (100.0, 2_000.0)
        var regions: [Region] = []
        var attempts = 0
        while regions.count < 7, attempts < 400 {
            attempts += 1
            let r = exp(rng.uniform(log(radii.0), log(radii.1)))
            let i = Int(rng.uniform(6, Double(xy.count - 40)))
            let dir = normalized(xy[min(i + 5, xy.count - 1)] - xy[i])
            guard dir.x.isFinite else { continue }
            let perp = SIMD2(-dir.y, dir.x)
            let c = xy[i] + perp * rng.uniform(-0.5, 0.5) * r
            let region = Region.circle(
                identifier: "\(subject)/r\(regions.count)",
                center: proj.unproject(east: c.x, north: c.y), radius: r)
            if isClean(region, truth: truth, times: times) { regions.append(region) }
        }
        let sigma = level.sigma * rng.uniform(0.9, 1.1)
        let fixes = observe(truth, times: times, subject: subject, sigma: sigma, interval: dt, rng: rng)
        return SyntheticTrack(
            family: mode.rawValue, level: level, subject: subject, times: times, truth: truth,
            fixes: fixes, regions: regions, noiseSigma: sigma)
    }

    /// Whether the path crosses `region` at least once and every crossing is clear: ≥ 50 m
    /// past the boundary and ≥ 60 s on the new side, starting ≥ 300 m and ending ≥ 150 m
    /// from the boundary.
    static func isClean(_ region: Region, truth: [Coordinate], times: [Double]) -> Bool {
        let sd = truth.map { region.signedDistance(to: $0) }
        guard abs(sd[0]) >= 300, abs(sd[sd.count - 1]) >= 150 else { return false }
        var segStart = 0
        var crossings = 0
        for i in 1..<sd.count where (sd[i] <= 0) != (sd[i - 1] <= 0) {
            let seg = sd[segStart..<i]
            guard seg.map(abs).max()! >= 50, times[i - 1] - times[segStart] >= 60 else { return false }
            segStart = i
            crossings += 1
        }
        let last = sd[segStart...]
        return crossings > 0 && last.map(abs).max()! >= 50 && times[times.count - 1] - times[segStart] >= 60
    }
}

func normalized(_ v: SIMD2<Double>) -> SIMD2<Double> {
    let n = (v.x * v.x + v.y * v.y).squareRoot()
    return v / n
}
