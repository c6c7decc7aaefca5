// Re-plan cost against a 1,000,000-region catalogue (the *country* scenario of the engine
// benchmarks: circles of 50–500 m spread uniformly over 1,000 km × 1,000 km, seeded).
import Benchmark
import Foundation
import Geodesy
import Geofencing
import RegionPlanner

/// SplitMix64, seeded: the same catalogue and queries on every run.

let origin = Coordinate(uncheckedLatitude: 45, longitude: 5)
let projection = LocalProjection(origin: origin)
let boxMeters = 1_000_000.0

func point(_ rng: inout SplitMix64) -> Coordinate {
    projection.unproject(
        east: Double.random(in: 0..<boxMeters, using: &rng),
        north: Double.random(in: 0..<boxMeters, using: &rng))
}

func countryEntries() -> [CatalogueEntry] {
    var rng = SplitMix64(seed: 2026)
    return (0..<1_000_000).map { i in
        CatalogueEntry(
            region: .circle(
                identifier: "r\(i)", center: point(&rng),
                radius: Double.random(in: 50..<500, using: &rng)))
    }
}

/// Built once, on first use (outside the measured part).
let country: Catalogue = {
    do { return try Catalogue(countryEntries()) } catch { fatalError("\(error)") }
}()

/// A slot monitor that only keeps the registered set: measures the planner, not a monitor.
/// One benchmark task drives it at a time (`@unchecked Sendable`).
final class SlotSet: SlotMonitor, @unchecked Sendable {
    let slotCapacity = 20
    var regions: [String: Region] = [:]
    func register(_ region: Region) throws(SlotMonitorError) {
        guard regions[region.identifier] != nil || regions.count < slotCapacity else {
            throw .slotLimitExceeded(capacity: slotCapacity, identifier: region.identifier)
        }
        regions[region.identifier] = region
    }
    func unregister(identifier: String) { regions[identifier] = nil }
    func state(of identifier: String) -> RegionState { .outside }
    var registeredIdentifiers: [String] { Array(regions.keys) }
    func setLocationUpdates(_ enabled: Bool) {}
}

let sizing = ReplanSizing(policy: .coreLocation, largestRegionSize: 500, maximumSpeed: 40, maximumFixInterval: 1)

func fix(_ c: Coordinate, at t: Double) -> LocationFix {
    LocationFix(subject: "phone", coordinate: c, horizontalAccuracy: 10, timestamp: Date(timeIntervalSince1970: t))
}

/// The re-plan region's exit at `c`, one minute after the start: the planner asks for the next
/// fix and re-plans there (``RegionPlanner/observe(_:)``).
func exitOfReplanRegion(at c: Coordinate) -> TransitionEvent {
    let fix = fix(c, at: 60)
    return TransitionEvent(
        kind: .exit, regionID: RegionPlanner<SlotSet>.replanIdentifier, subject: "phone",
        fix: fix, time: fix.timestamp, crossedAt: fix.timestamp, isInitial: false)
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        timeUnits: .microseconds,
        warmupIterations: 5,
        maxDuration: .seconds(5), maxIterations: 5_000)

    Benchmark(
        "Catalogue build, 1,000,000 circles",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds,
            warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 3)
    ) { benchmark in
        let entries = countryEntries()
        benchmark.startMeasurement()
        blackHole(try? Catalogue(entries))
        benchmark.stopMeasurement()
    }

    Benchmark("Catalogue nearest-20, 1,000,000 regions") { benchmark in
        let catalogue = country
        var rng = SplitMix64(seed: UInt64(benchmark.currentIteration) &+ 17)
        let q = point(&rng)
        benchmark.startMeasurement()
        blackHole(catalogue.nearest(20, to: q))
    }

    // One re-plan after a typical hop (1.5 km, the drive's re-plan spacing): the k-nearest
    // query, the diff, and the monitor calls for the regions that change.
    Benchmark("Re-plan after a 1.5 km hop, 1,000,000 regions") { benchmark in
        let catalogue = country
        var rng = SplitMix64(seed: UInt64(benchmark.currentIteration) &+ 99)
        let a = point(&rng)
        let b = Geodesic.wgs84.direct(
            from: a, azimuth: Double.random(in: -180..<180, using: &rng),
            distance: 1_500
        ).coordinate
        let monitor = SlotSet()
        guard
            let planner = try? RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "c.", catalogue: catalogue)],
                sizing: sizing, allowsHybrid: false)
        else { fatalError("planner") }
        try? await planner.start(at: fix(a, at: 0))
        benchmark.startMeasurement()
        blackHole(try? await planner.handle(exitOfReplanRegion(at: b)))
        blackHole(try? await planner.observe(fix(b, at: 61)))
        benchmark.stopMeasurement()
    }

    // Worst case: a jump to an unrelated place, every registered region changes.
    Benchmark("Re-plan after a far jump (all 19 swapped), 1,000,000 regions") { benchmark in
        let catalogue = country
        var rng = SplitMix64(seed: UInt64(benchmark.currentIteration) &+ 555)
        let a = point(&rng)
        let b = point(&rng) // far apart: the fixes are a day apart, not a glitch
        let monitor = SlotSet()
        guard
            let planner = try? RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "c.", catalogue: catalogue)],
                sizing: sizing, allowsHybrid: false)
        else { fatalError("planner") }
        try? await planner.start(at: fix(a, at: 0))
        benchmark.startMeasurement()
        blackHole(try? await planner.handle(exitOfReplanRegion(at: b)))
        blackHole(try? await planner.observe(fix(b, at: 86_400)))
        benchmark.stopMeasurement()
    }
}
