import Foundation
import Geodesy
@testable import Geofencing

// Evaluation harness, part 1: deterministic synthetic tracks with known true crossings.
//
// Each track has a true path (sampled every `dt` seconds), a set of circular regions placed
// so that every true crossing is unambiguous (the path goes at least 50 m past the
// boundary and stays on the new side at least 60 s; it starts ≥ 300 m and ends ≥ 150 m from
// every boundary), and fixes = truth + GPS error (see `GPSErrorModel`).


enum Mode: String, CaseIterable, Sendable {
    case walking, cycling, driving, stationary

    var speed: Double { switch self { case .walking: 1.4; case .cycling: 5; case .driving: 14; case .stationary: 0 } }
    var duration: Double { switch self { case .walking: 2_700; case .cycling: 2_100; case .driving: 1_500; case .stationary: 3_600 } }
    var dt: Double { self == .stationary ? 2 : 1 }
}

struct TrueCrossing: Sendable {
    var regionID: String
    var kind: TransitionEvent.Kind
    var time: Double
}

struct SyntheticTrack: Sendable {
    var mode: Mode
    var subject: String
    var times: [Double]
    var truth: [Coordinate]
    var fixes: [LocationFix]
    var regions: [Region]
    var crossings: [TrueCrossing]
    var noiseSigma: Double

    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func make(mode: Mode, index: Int, seed: UInt64) -> SyntheticTrack {
        var rng = SplitMix64(seed: seed &+ UInt64(index) &* 7_919 &+ UInt64(Mode.allCases.firstIndex(of: mode)!) &* 104_729)
        let origin = Coordinate(uncheckedLatitude: rng.uniform(-60, 60), longitude: rng.uniform(-180, 180))
        let proj = LocalProjection(origin: origin)
        // True path in local metres.
        var xy: [SIMD2<Double>] = []
        var times: [Double] = []
        let dt = mode.dt
        if mode == .stationary {
            for i in 0..<Int(mode.duration / dt) { xy.append(.zero); times.append(Double(i) * dt) }
        } else {
            var p = SIMD2<Double>(0, 0), heading = rng.uniform(0, 2 * .pi)
            var t = 0.0
            while t < mode.duration {
                let leg = rng.uniform(400, 2_500) * (mode == .walking ? 0.5 : 1)
                let v = mode.speed * rng.uniform(0.8, 1.2)
                let steps = Int(leg / v)
                for _ in 0..<steps where t < mode.duration {
                    xy.append(p); times.append(t)
                    p += SIMD2(sin(heading), cos(heading)) * v * dt
                    t += dt
                }
                if mode == .walking, rng.nextUnit() < 0.3 {      // a stop
                    for _ in 0..<Int(rng.uniform(60, 300)) where t < mode.duration {
                        xy.append(p); times.append(t); t += dt
                    }
                }
                heading += rng.uniform(0.5, 2.0) * (rng.nextUnit() < 0.5 ? -1 : 1)
            }
            for _ in 0..<300 { xy.append(p); times.append(t); t += dt }   // rest at the end
        }
        let truth = xy.map { proj.unproject(east: $0.x, north: $0.y) }
        let subject = "\(mode.rawValue)-\(index)"

        // Regions.
        var regions: [Region] = []
        var attempts = 0
        let wanted = mode == .stationary ? 3 : 7
        while regions.count < wanted, attempts < 400 {
            attempts += 1
            let r = exp(rng.uniform(log(100), log(2_000)))
            let center: Coordinate
            if mode == .stationary {
                let d = rng.uniform(40, min(100, 0.5 * r)) * (rng.nextUnit() < 0.5 ? -1 : 1)   // boundary this far
                let az = rng.uniform(0, 360)
                center = Geodesic.wgs84.direct(from: truth[0], azimuth: az, distance: r + d).coordinate
            } else {
                let i = Int(rng.uniform(60, Double(xy.count - 400)))
                let dir = simd_normalize(xy[i + 5] - xy[i])
                guard dir.x.isFinite else { continue }
                let perp = SIMD2(-dir.y, dir.x)
                let c = xy[i] + perp * rng.uniform(-0.5, 0.5) * r
                center = proj.unproject(east: c.x, north: c.y)
            }
            let region = Region.circle(identifier: "\(subject)/r\(regions.count)", center: center, radius: r)
            if let crossings = cleanCrossings(region, truth: truth, times: times) {
                if mode != .stationary, crossings.isEmpty { continue }
                regions.append(region)
            }
        }
        let crossings = regions.flatMap { cleanCrossings($0, truth: truth, times: times)! }
            .sorted { $0.time < $1.time }
        var error = GPSErrorModel(sigma: rng.uniform(5, 30), rng: rng)
        let fixes = zip(times, truth).map { t, p in
            let (q, acc) = error.observe(p, dt: dt, elapsed: t)
            return LocationFix(subject: subject, coordinate: q, horizontalAccuracy: acc,
                               timestamp: t0.addingTimeInterval(t))
        }
        return SyntheticTrack(mode: mode, subject: subject, times: times, truth: truth, fixes: fixes,
                              regions: regions, crossings: crossings, noiseSigma: error.sigma)
    }

    /// The true crossings of `region`, or `nil` if any of them is ambiguous.
    static func cleanCrossings(_ region: Region, truth: [Coordinate], times: [Double]) -> [TrueCrossing]? {
        let sd = truth.map { region.signedDistance(to: $0) }
        guard abs(sd[0]) >= 300, abs(sd[sd.count - 1]) >= 150 else { return nil }
        var out: [TrueCrossing] = []
        var segStart = 0
        for i in 1..<sd.count where (sd[i] <= 0) != (sd[i - 1] <= 0) {
            // The segment that just ended must be deep and long enough.
            let seg = sd[segStart..<i]
            guard seg.map(abs).max()! >= 50, times[i - 1] - times[segStart] >= 60 else { return nil }
            let t = times[i - 1] + (times[i] - times[i - 1]) * sd[i - 1] / (sd[i - 1] - sd[i])
            out.append(TrueCrossing(regionID: region.identifier, kind: sd[i] <= 0 ? .enter : .exit, time: t))
            segStart = i
        }
        let last = sd[segStart...]
        guard last.map(abs).max()! >= 50, times[times.count - 1] - times[segStart] >= 60 else { return nil }
        return out
    }
}

private func simd_normalize(_ v: SIMD2<Double>) -> SIMD2<Double> {
    let n = (v.x * v.x + v.y * v.y).squareRoot()
    return v / n
}
