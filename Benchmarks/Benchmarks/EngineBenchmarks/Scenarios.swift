import Foundation
import Geodesy
import Geofencing

// Fixed, seeded benchmark scenarios (issue 4):
// - country: 1,000,000 circles, radius 50–500 m, uniform over a 1,000 km × 1,000 km box
//   centred at 45° N 5° E; 1,000,000 fixes from 10,000 moving subjects.
// - city: 100,000 circles, radius 50–500 m, in a 50 km × 50 km box (≈ 11.6 regions contain
//   a random point); the same kind of fixes.
// - polygons: 100,000 star-shaped polygons of 8–64 vertices, 50–500 m across, in a
//   100 km × 100 km box; the same kind of fixes.
// Subjects start uniformly in the box and move 1–30 m/s with a fix every 5 s
// (±10 m accuracy), heading changing slowly.
// - dense city (issue 35): the city's circles, and one car driving 15 m per fix, a fix a
//   second, with correlated GPS noise: about ten regions over every fix, a boundary crossed
//   every few fixes, no safe rectangle that lasts.
// - dense polygons: 100,000 star-shaped polygons of 8–64 vertices, 120–1,200 m across, in
//   50 km × 50 km (about ten over a point), and the same car.

struct Box {
    var centerLat = 45.0, centerLon = 5.0, sizeKm: Double
    var dLat: Double { sizeKm * 1_000 / 111_132 / 2 }
    var dLon: Double { sizeKm * 1_000 / (111_320 * cos(centerLat * .pi / 180)) / 2 }
    func point(_ rng: inout SplitMix64) -> (Double, Double) {
        (centerLat + rng.uniform(-dLat, dLat), centerLon + rng.uniform(-dLon, dLon))
    }
}

enum Scenarios {
    static func circles(count: Int, in box: Box, seed: UInt64) -> [Region] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let (lat, lon) = box.point(&rng)
            return Region.circle(
                identifier: "c\(i)", center: Coordinate(uncheckedLatitude: lat, longitude: lon),
                radius: rng.uniform(50, 500))
        }
    }

    static func polygons(
        count: Int, in box: Box, radius: ClosedRange<Double> = 25...250, seed: UInt64
    ) -> [Region] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let (lat, lon) = box.point(&rng)
            let n = 8 + Int(rng.nextUnit() * 57)
            let r = rng.uniform(radius.lowerBound, radius.upperBound)
            let ring = (0..<n).map { k -> Coordinate in
                let a = Double(k) / Double(n) * 2 * .pi
                let rr = r * rng.uniform(0.5, 1)
                return Coordinate(
                    uncheckedLatitude: lat + rr * cos(a) / 111_132,
                    longitude: lon + rr * sin(a) / (111_320 * cos(lat * .pi / 180)))
            }
            return Region(identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring)))
        }
    }

    /// `perSubject` fixes from each of `subjects` subjects, interleaved in time order.
    static func fixes(subjects: Int, perSubject: Int, in box: Box, seed: UInt64) -> [LocationFix] {
        var rng = SplitMix64(seed: seed)
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        var pos = (0..<subjects).map { _ in box.point(&rng) }
        var heading = (0..<subjects).map { _ in rng.uniform(0, 2 * .pi) }
        let speed = (0..<subjects).map { _ in rng.uniform(1, 30) }
        let names = (0..<subjects).map { "subject-\($0)" }
        var out: [LocationFix] = []
        out.reserveCapacity(subjects * perSubject)
        for k in 0..<perSubject {
            for s in 0..<subjects {
                heading[s] += rng.uniform(-0.3, 0.3)
                let step = speed[s] * 5
                var (lat, lon) = pos[s]
                lat += step * cos(heading[s]) / 111_132
                lon += step * sin(heading[s]) / (111_320 * cos(lat * .pi / 180))
                if abs(lat - box.centerLat) > box.dLat || abs(lon - box.centerLon) > box.dLon {
                    heading[s] += .pi // bounce back into the box
                    (lat, lon) = pos[s]
                }
                pos[s] = (lat, lon)
                out.append(
                    LocationFix(
                        subject: names[s], coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                        horizontalAccuracy: 10, timestamp: t0.addingTimeInterval(Double(k) * 5)))
            }
        }
        return out
    }
}

extension Scenarios {
    /// One car driving `count` fixes through `box`, `step` metres per fix a second apart:
    /// heading a slow random walk, turned back at the box's edges, with correlated GPS noise
    /// (about 4 m, 30 s time constant) and an accuracy of the noise's size + 3 m.
    static func drive(count: Int, in box: Box, step: Double = 15, seed: UInt64) -> [LocationFix] {
        var rng = SplitMix64(seed: seed)
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        // Starts inside the part of the box it turns back at (95 %), or it would never move.
        var (lat, lon) = box.point(&rng)
        lat = box.centerLat + 0.9 * (lat - box.centerLat)
        lon = box.centerLon + 0.9 * (lon - box.centerLon)
        var heading = rng.uniform(0, 2 * .pi)
        var noise = (north: 0.0, east: 0.0)
        let keep = exp(-1.0 / 30)
        let kick = 4 * (1 - keep * keep).squareRoot()
        var out: [LocationFix] = []
        out.reserveCapacity(count)
        for k in 0..<count {
            heading += rng.uniform(-0.1, 0.1)
            let next = (
                lat + step * cos(heading) / 111_132,
                lon + step * sin(heading) / (111_320 * cos(lat * .pi / 180))
            )
            if abs(next.0 - box.centerLat) > box.dLat * 0.95 || abs(next.1 - box.centerLon) > box.dLon * 0.95 {
                heading += .pi // turn back into the box
            } else {
                (lat, lon) = next
            }
            noise.north = keep * noise.north + kick * rng.nextGaussian()
            noise.east = keep * noise.east + kick * rng.nextGaussian()
            out.append(
                LocationFix(
                    subject: "car",
                    coordinate: Coordinate(
                        uncheckedLatitude: lat + noise.north / 111_132,
                        longitude: lon + noise.east / (111_320 * cos(lat * .pi / 180))),
                    horizontalAccuracy: (noise.north * noise.north + noise.east * noise.east).squareRoot() + 3,
                    timestamp: t0.addingTimeInterval(Double(k)), speed: step))
        }
        return out
    }
}

/// One prepared scenario: an engine with its regions, and fixes to replay. Replays shift
/// timestamps by a large offset per round so that fixes stay in order. Fixes go through the
/// public fast path: a ``SubjectHandle`` per subject (looked up once, at preparation) and
/// one reused event buffer.
final class Replay: @unchecked Sendable {
    var engine: Engine
    var fixes: [LocationFix]
    let handles: [SubjectHandle]
    var buffer: [TransitionEvent] = []
    var next = 0
    var events = 0

    init(regions: [Region], fixes: [LocationFix], policy: HysteresisPolicy = .precise) {
        engine = Engine(policy: policy)
        try! engine.add(contentsOf: regions)
        self.fixes = fixes
        var e = engine
        handles = fixes.map { e.handle(for: $0.subject) }
        engine = e
    }

    /// Processes the next `count` fixes (wrapping around), in batches through
    /// ``Engine/process(_:subjects:initialTrigger:into:)``. At each wrap the stored fixes move
    /// 1,000,000 s later (one pass over them per million fixes, counted in the measurement).
    func run(_ count: Int) {
        var left = count
        while left > 0 {
            let k = next % fixes.count
            if k == 0, next > 0 {
                for j in fixes.indices { fixes[j].timestamp += 1_000_000 }
            }
            let n = min(left, 256, fixes.count - k)
            buffer.removeAll(keepingCapacity: true)
            do { try engine.process(fixes[k..<(k + n)], subjects: handles[k..<(k + n)], into: &buffer) } catch {
                fatalError("\(error)")
            }
            events &+= buffer.count
            next += n
            left -= n
        }
    }
}

/// Resident set size of this process in bytes (Linux /proc/self/statm; 0 elsewhere).
func residentBytes() -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let parts = s.split(separator: " ")
    guard parts.count > 1, let pages = Int(parts[1]) else { return 0 }
    return pages * 4_096
}
