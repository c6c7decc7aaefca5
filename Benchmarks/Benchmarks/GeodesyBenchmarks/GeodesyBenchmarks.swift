// Geodesy throughput, one core, release build. Seeded and fixed, so numbers reproduce:
//   cd Benchmarks && swift package --disable-sandbox benchmark --target GeodesyBenchmarks
// Each benchmark iteration runs 1,000 operations (scalingFactor .kilo), so the reported
// throughput is in thousands of operations per second.
import Benchmark
import Geodesy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SplitMix64 {
    /// Uniform on the sphere (by area).
    mutating func coordinate() -> Coordinate {
        let z = uniform(-1, 1)
        let lat = asin(z) * 180 / Double.pi
        return Coordinate(uncheckedLatitude: lat, longitude: uniform(-180, 180))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .instructions],
        scalingFactor: .kilo,
        maxDuration: .seconds(3), maxIterations: 1_000_000)
    let geodesic = Geodesic.wgs84

    // Random pairs over the whole globe (the mix GeodSolve -i is measured on, too).
    var rng = SplitMix64(seed: 1)
    let pairs: [(Coordinate, Coordinate)] = (0..<4096).map { _ in (rng.coordinate(), rng.coordinate()) }
    Benchmark("Geodesic.inverse, random global pairs") { benchmark in
        var k = 0
        for _ in benchmark.scaledIterations {
            let (a, b) = pairs[k & 4095]
            blackHole(geodesic.inverse(a, b))
            k &+= 1
        }
    }

    // Short pairs (the geofencing range, 1 m – 100 km).
    let shortPairs: [(Coordinate, Coordinate)] = (0..<4096).map { _ in
        let a = rng.coordinate()
        let d = rng.uniform(1, 100_000)
        return (a, geodesic.direct(from: a, azimuth: rng.uniform(-180, 180), distance: d).coordinate)
    }
    Benchmark("Geodesic.inverse, short pairs (1 m – 100 km)") { benchmark in
        var k = 0
        for _ in benchmark.scaledIterations {
            let (a, b) = shortPairs[k & 4095]
            blackHole(geodesic.inverse(a, b))
            k &+= 1
        }
    }

    let directs: [(Coordinate, Double, Double)] = (0..<4096).map { _ in
        (rng.coordinate(), rng.uniform(-180, 180), rng.uniform(0, 20_000_000))
    }
    Benchmark("Geodesic.direct, random") { benchmark in
        var k = 0
        for _ in benchmark.scaledIterations {
            let (a, az, s) = directs[k & 4095]
            blackHole(geodesic.direct(from: a, azimuth: az, distance: s))
            k &+= 1
        }
    }

    // 1,024 circles of 50 m – 100 km radius all over the globe; random global points (almost
    // all far outside, as for a spatial-index candidate that is not hit).
    let circles: [GeodesicCircle] = (0..<1024).map { _ in
        GeodesicCircle(center: rng.coordinate(), radius: rng.uniform(50, 100_000))
    }
    let points: [Coordinate] = (0..<4096).map { _ in rng.coordinate() }
    Benchmark("GeodesicCircle.contains, random global points (mostly far outside)") { benchmark in
        var k = 0
        var inside = 0
        for _ in benchmark.scaledIterations {
            if circles[k & 1023].contains(points[(k >> 3) & 4095]) { inside &+= 1 }
            k &+= 1
        }
        blackHole(inside)
    }

    // Points within 1.5 radii of each circle's centre: every test passes the box and uses
    // the chord bound (and the exact fallback for points within the band).
    let nearPoints: [Coordinate] = circles.map { c in
        geodesic.direct(
            from: c.center, azimuth: rng.uniform(-180, 180),
            distance: c.radius * rng.uniform(0, 1.5)
        ).coordinate
    }
    Benchmark("GeodesicCircle.contains, points near the circle (0 – 1.5 r)") { benchmark in
        var k = 0
        var inside = 0
        for _ in benchmark.scaledIterations {
            if circles[k & 1023].contains(nearPoints[k & 1023]) { inside &+= 1 }
            k &+= 1
        }
        blackHole(inside)
    }

    Benchmark("GeodesicCircle.init (per-circle constants)") { benchmark in
        var k = 0
        for _ in benchmark.scaledIterations {
            blackHole(GeodesicCircle(center: points[k & 4095], radius: 500))
            k &+= 1
        }
    }
}
