import Foundation
import Geodesy

@testable import Geofencing

// Evaluation harness, part 1b: the adversarial families, written to break a rule, not to suit
// one. Each is built at every noise level (`NoiseLevel`), against circles (radius 150–1,000 m)
// and polygons with a hole (a 2,400 m × 2,000 m rectangle around a 500 m square hole; the
// boundary stretch used is an edge of the rectangle or of the hole, ≥ 100 m from corners).
//
// - boundary walker: rests 2–5 min far from the boundary, walks to it, then walks along it
//   for 20–40 min with the offset swinging within ±15 m (two sines, amplitude 5–15 m, so it
//   crosses the line every minute or two), then leaves to either side and rests.
// - stationary: a device lying 20–60 m inside or outside for an hour (cell-grade: two hours).
// - grazer: walks or drives up to the boundary, along it 30–180 s at a fixed offset within
//   ±15 m (dipping up to 15 m across), and back out the way it came.
// - lying jumps: walks along the boundary 30–70 m inside (or stands there) for 45 min while
//   the fixes jump 100–500 m, claiming 2–5 m accuracy, for 1–5 fixes about once a minute
//   (cell-grade: 1–2 fixes, one in ten).

enum HardFamily: String, CaseIterable, Sendable {
    case boundaryWalker = "boundary walker"
    case stationary
    case grazer
    case lyingJumps = "lying jumps"
}

/// A stretch of boundary to walk along, in local metres: `point(s, o)` is arc position `s`
/// along it, `o` metres outward (positive = outside the region).
struct BoundaryStretch {
    var region: Region
    var length: Double
    /// Whether `s` wraps around (a circle) or paces back and forth over [0, length] (an edge).
    var periodic: Bool
    var point: (Double, Double) -> SIMD2<Double>
    /// How far from the boundary the path may go on each side (room before other edges).
    var roomInside: Double
    var roomOutside: Double

    func at(_ s: Double, _ o: Double) -> SIMD2<Double> {
        if periodic { return point(s.truncatingRemainder(dividingBy: length), o) }
        let period = 2 * length
        var u = s.truncatingRemainder(dividingBy: period)
        if u < 0 { u += period }
        return point(u <= length ? u : period - u, o)
    }

    static func random(_ id: String, _ proj: LocalProjection, _ rng: inout SplitMix64) -> BoundaryStretch {
        let unproject = { (p: SIMD2<Double>) in proj.unproject(east: p.x, north: p.y) }
        let c = SIMD2(rng.uniform(-200, 200), rng.uniform(-200, 200))
        switch Int(rng.uniform(0, 3)) {
        case 0:
            let r = exp(rng.uniform(log(150), log(1_000)))
            let a0 = rng.uniform(0, 2 * .pi)
            let region = Region.circle(identifier: id, center: unproject(c), radius: r)
            return BoundaryStretch(
                region: region, length: 2 * .pi * r, periodic: true,
                point: { s, o in
                    let a = a0 + s / r
                    return c + SIMD2(sin(a), cos(a)) * (r + o)
                }, roomInside: 0.8 * r, roomOutside: 400)
        default:
            let alpha = rng.uniform(0, 2 * .pi)
            let rot = { (v: SIMD2<Double>) in
                SIMD2(v.x * cos(alpha) - v.y * sin(alpha), v.x * sin(alpha) + v.y * cos(alpha))
            }
            let ring = { (hx: Double, hy: Double) in
                [SIMD2(-hx, -hy), SIMD2(hx, -hy), SIMD2(hx, hy), SIMD2(-hx, hy)].map { unproject(c + rot($0)) }
            }
            let region = Region(
                identifier: id, shape: .polygon(Polygon(exterior: ring(1_200, 1_000), holes: [ring(250, 250)])))
            if rng.nextUnit() < 0.5 {
                // The rectangle's bottom edge (outward: −y), 100 m clear of the corners.
                return BoundaryStretch(
                    region: region, length: 2_200, periodic: false,
                    point: { s, o in
                        c + rot(SIMD2(-1_100 + s, -1_000 - o))
                    }, roomInside: 400, roomOutside: 400)
            }
            // The hole's bottom edge (outside the region = into the hole: +y).
            return BoundaryStretch(
                region: region, length: 300, periodic: false,
                point: { s, o in
                    c + rot(SIMD2(-150 + s, -250 + o))
                }, roomInside: 400, roomOutside: 200)
        }
    }
}

extension SyntheticTrack {
    static func make(_ family: HardFamily, level: NoiseLevel, index: Int, seed: UInt64) -> SyntheticTrack {
        var rng = SplitMix64(
            seed: seed &+ 0x5EED &+ UInt64(index) &* 7_919
                &+ UInt64(HardFamily.allCases.firstIndex(of: family)!) &* 104_729
                &+ UInt64(NoiseLevel.allCases.firstIndex(of: level)!) &* 1_299_709)
        let origin = Coordinate(uncheckedLatitude: rng.uniform(-60, 60), longitude: rng.uniform(-180, 180))
        let proj = LocalProjection(origin: origin)
        let subject = "\(family.rawValue)-\(level.rawValue)-\(index)"
        let stretch = BoundaryStretch.random("\(subject)/r0", proj, &rng)
        var path = PathBuilder(stretch: stretch, s: rng.uniform(0, stretch.length))
        var profile = GPSErrorModel.Profile()
        var interval = level.interval
        switch family {
        case .boundaryWalker:
            let side0 = rng.nextUnit() < 0.5 ? -1.0 : 1
            let side1 = rng.nextUnit() < 0.5 ? -1.0 : 1
            let a = rng.uniform(5, 10)
            let b = rng.uniform(0, 5)
            let p1 = rng.uniform(120, 600)
            let p2 = rng.uniform(40, 120)
            let f1 = rng.uniform(0, 2 * .pi)
            let f2 = rng.uniform(0, 2 * .pi)
            let offset = { (t: Double) in a * sin(2 * .pi * t / p1 + f1) + b * sin(2 * .pi * t / p2 + f2) }
            path.o = side0 * stretch.room(side0)
            path.rest(rng.uniform(120, 300))
            path.move(toOffset: offset(0), speed: 1.4)
            let v = 1.4 * rng.uniform(0.6, 1)
            path.along(duration: rng.uniform(1_200, 2_400), speed: v, offset: offset)
            path.move(toOffset: side1 * stretch.room(side1), speed: 1.4)
            path.rest(rng.uniform(120, 300))
        case .stationary:
            let side = rng.nextUnit() < 0.5 ? -1.0 : 1
            path.o = side * rng.uniform(20, 60)
            if level != .cell { interval = 2 }
            path.rest(level == .cell ? 7_200 : 3_600)
        case .grazer:
            let side = rng.nextUnit() < 0.5 ? -1.0 : 1
            let g = rng.uniform(-15, 15)
            let speed = rng.nextUnit() < 0.5 ? 1.4 : 14
            path.o = side * stretch.room(side)
            path.rest(rng.uniform(120, 300))
            path.move(toOffset: g, speed: speed)
            path.along(duration: rng.uniform(30, 180), speed: speed, offset: { _ in g })
            path.move(toOffset: side * stretch.room(side), speed: speed)
            path.rest(rng.uniform(120, 300))
        case .lyingJumps:
            let depth = -rng.uniform(30, 70)
            path.o = depth
            let speed = rng.nextUnit() < 0.5 ? 0 : 1.4 * rng.uniform(0.6, 1)
            path.along(duration: 2_700, speed: speed, offset: { _ in depth })
            profile.jumpRate = level == .cell ? 0.1 : 1.0 / 60
            profile.jumpFixes = level == .cell ? 1...2 : 1...5
            profile.jumpLieShare = 1
        }
        let (times, truth) = path.sampled(every: interval, proj)
        let sigma = level.sigma * rng.uniform(0.9, 1.1)
        let fixes = observe(
            truth, times: times, subject: subject, sigma: sigma, interval: interval, rng: rng,
            profile: profile)
        return SyntheticTrack(
            family: family.rawValue, level: level, subject: subject, times: times, truth: truth,
            fixes: fixes, regions: [stretch.region], noiseSigma: sigma)
    }
}

extension BoundaryStretch {
    func room(_ side: Double) -> Double { side < 0 ? roomInside : roomOutside }
}

/// A true path along a ``BoundaryStretch``, one point per second.
struct PathBuilder {
    var stretch: BoundaryStretch
    var s: Double
    var o = 0.0
    var points: [SIMD2<Double>] = []

    mutating func rest(_ seconds: Double) {
        for _ in 0..<Int(seconds) { points.append(stretch.at(s, o)) }
    }

    /// Straight across the boundary (along its normal) to offset `target`.
    mutating func move(toOffset target: Double, speed: Double) {
        while abs(target - o) > speed {
            points.append(stretch.at(s, o))
            o += target > o ? speed : -speed
        }
        o = target
    }

    /// Along the boundary at `speed`, the offset following `offset(t)` (t from the start).
    mutating func along(duration: Double, speed: Double, offset: (Double) -> Double) {
        for t in 0..<Int(duration) {
            o = offset(Double(t))
            points.append(stretch.at(s, o))
            s += speed
        }
    }

    func sampled(every interval: Double, _ proj: LocalProjection) -> (times: [Double], truth: [Coordinate]) {
        let step = max(1, Int(interval))
        let picked = stride(from: 0, to: points.count, by: step)
        return (picked.map(Double.init), picked.map { proj.unproject(east: points[$0].x, north: points[$0].y) })
    }
}
