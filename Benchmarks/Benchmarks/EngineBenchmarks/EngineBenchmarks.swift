import Benchmark
import Foundation
import Geofencing

// Each scenario is built in its benchmark's setup (outside the measured region) and released
// in its teardown, so that while one scenario is measured no other scenario's regions,
// subjects or fixes are resident: each is measured as it would run alone.
enum Scenario {
    static let countryBox = Box(sizeKm: 1_000)
    static let cityBox = Box(sizeKm: 50)
    static let polygonBox = Box(sizeKm: 100)
    static func countryRegions() -> [Region] { Scenarios.circles(count: 1_000_000, in: countryBox, seed: 1) }
    static func country() -> Replay {
        Replay(
            regions: countryRegions(),
            fixes: Scenarios.fixes(subjects: 10_000, perSubject: 100, in: countryBox, seed: 2))
    }
    static func city() -> Replay {
        Replay(
            regions: Scenarios.circles(count: 100_000, in: cityBox, seed: 3),
            fixes: Scenarios.fixes(subjects: 10_000, perSubject: 100, in: cityBox, seed: 4))
    }
    static func polygons() -> Replay {
        Replay(
            regions: Scenarios.polygons(count: 100_000, in: polygonBox, seed: 5),
            fixes: Scenarios.fixes(subjects: 10_000, perSubject: 100, in: polygonBox, seed: 6))
    }
    static func denseCity() -> Replay {
        Replay(
            regions: Scenarios.circles(count: 100_000, in: cityBox, seed: 3),
            fixes: Scenarios.drive(count: 1_000_000, in: cityBox, seed: 7))
    }
    static func densePolygons() -> Replay {
        Replay(
            regions: Scenarios.polygons(count: 100_000, in: cityBox, radius: 60...600, seed: 8),
            fixes: Scenarios.drive(count: 1_000_000, in: cityBox, seed: 9))
    }
}

/// The running benchmark's scenario (set by its setup, cleared by its teardown; benchmarks
/// run one at a time).
nonisolated(unsafe) var current: Replay?
nonisolated(unsafe) var currentRegions: [Region] = []

let benchmarks: @Sendable () -> Void = {
    let throughput = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal], timeUnits: .nanoseconds, warmupIterations: 0,
        scalingFactor: .mega, maxDuration: .seconds(10), maxIterations: 3)

    Benchmark("country: 1M circles, fixes from 10k subjects", configuration: throughput) { benchmark in
        let r = current!
        benchmark.startMeasurement()
        r.run(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(r.events)
    } setup: {
        current = Scenario.country()
    } teardown: {
        current = nil
    }

    Benchmark("city: 100k circles in 50 km x 50 km", configuration: throughput) { benchmark in
        let r = current!
        benchmark.startMeasurement()
        r.run(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(r.events)
    } setup: {
        current = Scenario.city()
    } teardown: {
        current = nil
    }

    Benchmark("polygons: 100k polygons of 8-64 vertices", configuration: throughput) { benchmark in
        let r = current!
        benchmark.startMeasurement()
        r.run(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(r.events)
    } setup: {
        current = Scenario.polygons()
    } teardown: {
        current = nil
    }

    Benchmark("dense city: one car, 15 m per fix, 100k circles in 50 km x 50 km", configuration: throughput) {
        benchmark in
        let r = current!
        benchmark.startMeasurement()
        r.run(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(r.events)
    } setup: {
        current = Scenario.denseCity()
    } teardown: {
        current = nil
    }

    Benchmark("dense polygons: one car, 100k polygons in 50 km x 50 km", configuration: throughput) { benchmark in
        let r = current!
        benchmark.startMeasurement()
        r.run(benchmark.scaledIterations.count)
        benchmark.stopMeasurement()
        blackHole(r.events)
    } setup: {
        current = Scenario.densePolygons()
    } teardown: {
        current = nil
    }

    // Index build and memory: a fresh engine per iteration from the same 1M circles.
    // Memory: `memoryLeakedBytes` = bytes allocated and still held when the measurement stops
    // (the engine is alive then), from the malloc interposer; divide by 1,000,000 for bytes per
    // region. Also reported: RSS growth per region (counts freed-but-retained build buffers too)
    // and the engine's own capacity-based estimate.
    Benchmark(
        "index build: 1M circles (bulk add)",
        configuration: .init(
            metrics: [
                .wallClock, .cpuTotal, .memoryLeakedBytes, .mallocCountTotal,
                .custom("RSS bytes per region", useScalingFactor: false),
                .custom("engine estimate bytes per region", useScalingFactor: false),
            ],
            timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(30),
            maxIterations: 3)
    ) { benchmark in
        let regions = currentRegions
        let rss0 = residentBytes()
        benchmark.startMeasurement()
        var engine = Engine()
        try! engine.add(contentsOf: regions)
        benchmark.stopMeasurement()
        let rss1 = residentBytes()
        benchmark.measurement(.custom("RSS bytes per region", useScalingFactor: false), (rss1 - rss0) / regions.count)
        benchmark.measurement(
            .custom("engine estimate bytes per region", useScalingFactor: false),
            engine.approximateRegionMemory / regions.count)
        blackHole(engine.regionCount)
    } setup: {
        currentRegions = Scenario.countryRegions()
    } teardown: {
        currentRegions = []
    }
}
