import Foundation
import Geodesy
import Geofencing

@testable import RegionPlanner

/// A local east/north frame (metres) for building scenarios.
struct Frame {
    let origin: Coordinate
    let projection: LocalProjection
    init(latitude: Double, longitude: Double) {
        origin = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
        projection = LocalProjection(origin: origin)
    }
    func coordinate(_ east: Double, _ north: Double) -> Coordinate {
        projection.unproject(east: east, north: north)
    }
}

enum Scenario {
    /// `count` circles with radii in `radii`, uniformly over a `width` × `height` metre box.
    static func circles(
        count: Int, frame: Frame, width: Double, height: Double,
        radii: ClosedRange<Double>, seed: UInt64, prefix: String = "r"
    ) -> [Region] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            Region.circle(
                identifier: "\(prefix)\(i)",
                center: frame.coordinate(rng.uniform(0, width), rng.uniform(0, height)),
                radius: rng.uniform(radii.lowerBound, radii.upperBound))
        }
    }

    /// A realistic track: the subject follows a smoothly turning course (heading random walk,
    /// `turning` radians per √s) inside the box at
    /// about `speed` m/s (varying ±30 %, stops included), one fix every `interval` s, with
    /// correlated GPS error (AR(1), σ = `noise` m), accuracy values around the true error
    /// (sometimes lying), and rare single-fix glitches of up to `glitch` metres.
    struct Track {
        var fixes: [LocationFix]
        /// Indices of glitch fixes.
        var glitches: Set<Int>
        /// Length of the true path (without GPS error), metres.
        var length: Double
    }

    static func track(
        length: Double, frame: Frame, width: Double, height: Double, speed: Double,
        interval: Double, noise: Double, glitch: Double, turning: Double, seed: UInt64,
        subject: String = "phone"
    ) -> Track {
        var rng = SplitMix64(seed: seed)
        var x = width * 0.1
        var y = height * 0.1
        var heading = Double.pi / 4
        var travelled = 0.0
        var ex = 0.0
        var ey = 0.0
        var t = 0.0
        var fixes: [LocationFix] = []
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let rho = 0.97
        var glitches = Set<Int>()
        var stopLeft = 0
        while travelled < length {
            var v = speed * rng.uniform(0.7, 1.3)
            if stopLeft > 0 {
                v = 0
                stopLeft -= 1
            } else if rng.uniform(0, 1) < 0.002 {
                stopLeft = Int(30 / interval)
            }
            heading += rng.nextGaussian() * turning * interval.squareRoot()
            let step = v * interval
            var nx = x + step * sin(heading)
            var ny = y + step * cos(heading)
            if nx < 0.05 * width || nx > 0.95 * width {
                heading = -heading
                nx = x + step * sin(heading)
            }
            if ny < 0.05 * height || ny > 0.95 * height {
                heading = .pi - heading
                ny = y + step * cos(heading)
            }
            travelled += hypot(nx - x, ny - y)
            x = nx
            y = ny
            ex = rho * ex + (1 - rho * rho).squareRoot() * noise * rng.nextGaussian()
            ey = rho * ey + (1 - rho * rho).squareRoot() * noise * rng.nextGaussian()
            var px = x + ex
            var py = y + ey
            var accuracy = max(5, hypot(ex, ey) * rng.uniform(0.8, 1.6))
            if rng.uniform(0, 1) < 0.001 {
                let a = rng.uniform(0, 2 * .pi)
                let d = rng.uniform(glitch / 2, glitch)
                px += d * sin(a)
                py += d * cos(a)
                accuracy = rng.uniform(0, 1) < 0.5 ? accuracy : d // lies half the time
                glitches.insert(fixes.count)
            }
            fixes.append(
                LocationFix(
                    subject: subject, coordinate: frame.coordinate(px, py),
                    horizontalAccuracy: accuracy,
                    timestamp: start.addingTimeInterval(t)))
            t += interval
        }
        return Track(fixes: fixes, glitches: glitches, length: travelled)
    }

    static func length(of fixes: [LocationFix]) -> Double {
        zip(fixes, fixes.dropFirst()).reduce(0) {
            $0 + Geodesic.wgs84.inverse($1.0.coordinate, $1.1.coordinate).distance
        }
    }
}

/// Key of an event for comparing runs.
struct EventKey: Hashable, CustomStringConvertible {
    var kind: TransitionEvent.Kind
    var region: String
    var time: Date
    var description: String { "\(kind.rawValue) \(region) @\(time.timeIntervalSince1970)" }
}

/// Runs long synchronous work (building a 200,000-region catalogue, a nearest query per fix of
/// a 4-hour drive) on a Dispatch thread, so that it does not hold one of the few threads of
/// Swift's cooperative pool for a minute while other suites (servers with real deadlines) need
/// them.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}
