import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

/// The energy comparison behind `geofence simulate --power`: four strategies on the bundled
/// drive and walk, priced by a ``PowerModel`` (docs/power.md reproduces its table).
///
/// ```swift
/// let comparison = PowerComparison()                  // default model, 10 s reporting
/// let report = try await comparison.run()
/// print(report.text)                                   // unit costs and one table per track
/// ```
///
/// Strategies (``PowerStrategy``): continuous GPS reporting every ``reportingInterval``
/// seconds; region monitoring of the 19 nearest regions plus a re-plan region (RegionPlanner
/// on a `Monitor` through ``MonitorSlotMonitor``), in slots only and with hybrid mode in dense
/// areas; a few large parent regions whose children
/// are downloaded on entry (tiers). The dense variants add ``syntheticPlaces`` seeded circles to each track. Deterministic: the same build prints the same table.
public struct PowerComparison: Sendable {
    /// The cost model.
    public var model: PowerModel
    /// Seconds between reports for the continuous strategy.
    public var reportingInterval: Double
    /// Parent size for the tiered strategy (metres between a cluster's first region and the others).
    public var clusterMeters: Double

    /// Seeded synthetic places added to each bundled track for a second, dense run of each
    /// (0: only the bundled regions).
    public var syntheticPlaces: Int

    /// The scenarios to compare; `nil`: the bundled drive and walk (and their dense variants).
    public var scenarios: [PowerScenario]?

    /// Region monitoring sends the events of each window of this many seconds in one upload
    /// (the server hears of each within the window, as continuous reporting's hears of each fix
    /// within its interval); `nil`: one upload per event, at once.
    public var uploadWindow: TimeInterval?

    public init(
        model: PowerModel = PowerModel(), reportingInterval: Double = 10, clusterMeters: Double = 3_000,
        syntheticPlaces: Int = 100, scenarios: [PowerScenario]? = nil, uploadWindow: TimeInterval? = nil
    ) {
        self.model = model
        self.reportingInterval = reportingInterval
        self.clusterMeters = clusterMeters
        self.syntheticPlaces = syntheticPlaces
        self.scenarios = scenarios
        self.uploadWindow = uploadWindow
    }

    /// The strategies compared, in table order.
    public var strategies: [PowerStrategy] {
        [
            .continuousReporting(intervalSeconds: reportingInterval), .nearestRegions(slots: 20),
            .hybridRegions(slots: 20), .tieredRegions(clusterMeters: clusterMeters),
        ]
    }

    /// One scenario's results.
    public struct ScenarioResult: Sendable {
        public var scenario: String
        public var durationSeconds: Double
        public var regionCount: Int
        public var reports: [StrategyReport]
    }

    /// The whole comparison.
    public struct Report: Sendable {
        public var results: [ScenarioResult]
        /// The printed text: unit costs, then one Markdown table per scenario.
        public var text: String
    }

    /// The bundled drive (low-bridge.gpx, up to 35 m/s) and walk (shops.csv, up to 3 m/s).
    static func bundledScenarios() throws -> [PowerScenario] {
        [
            PowerScenario(
                name: "drive (low-bridge.gpx)", fixes: try DemoTrack.fixes("low-bridge", "gpx", subject: "truck-7"),
                regions: try DemoTrack.regions("low-bridge"), maximumSpeed: 35),
            PowerScenario(
                name: "walk (shops.csv)", fixes: try DemoTrack.fixes("shops", "csv", subject: "walker"),
                regions: try DemoTrack.regions("shops"), maximumSpeed: 3),
        ]
    }

    /// `scenario` with `count` extra circles (radius 40–150 m) placed up to 3 km from points of
    /// its track, from a fixed seed: a catalogue too dense for the 20 slots.
    static func dense(_ scenario: PowerScenario, count: Int, seed: UInt64 = 2026) -> PowerScenario {
        guard !scenario.fixes.isEmpty, count > 0 else { return scenario }
        var rng = SplitMix64(seed: seed)
        var out = scenario
        out.name += " + \(count) synthetic places"
        for k in 0..<count {
            let anchor = scenario.fixes[Int(rng.next() % UInt64(scenario.fixes.count))].coordinate
            let c = Geodesic.wgs84.direct(from: anchor, azimuth: rng.uniform(0, 360), distance: rng.uniform(0, 3_000))
                .coordinate
            out.regions.append(.circle(identifier: "place-\(k + 1)", center: c, radius: rng.uniform(40, 150)))
        }
        return out
    }

    /// Your own catalogue and track as a scenario: the subject's top speed is `maximumSpeed`, or
    /// the 99th percentile of the speeds between the track's fixes, rounded up.
    static func scenario(regionsPath: String, trackPath: String, maximumSpeed: Double?) throws -> PowerScenario {
        let fixes = try DemoTrack.fixes(atPath: trackPath, subject: "subject")
        let speed = maximumSpeed ?? Self.topSpeed(of: fixes)
        let name = "\(trackPath) through \(regionsPath), sized for \(f(speed, 1)) m/s"
        return PowerScenario(
            name: name, fixes: fixes, regions: try InputFiles.loadRegions(path: regionsPath), maximumSpeed: speed)
    }

    /// The 99th percentile of the speeds between consecutive fixes (metres per second, rounded
    /// up; at least 1).
    static func topSpeed(of fixes: [LocationFix]) -> Double {
        var speeds: [Double] = []
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let dt = b.timestamp.timeIntervalSince(a.timestamp)
            guard dt > 0 else { continue }
            speeds.append(Geodesic.wgs84.inverse(a.coordinate, b.coordinate).distance / dt)
        }
        guard !speeds.isEmpty else { return 1 }
        speeds.sort()
        let p99 = speeds[min(speeds.count - 1, Int((Double(speeds.count) * 0.99).rounded(.up)) - 1)]
        return max(1, p99.rounded(.up))
    }

    /// Runs every strategy on ``scenarios``, or on the bundled scenarios (and their dense variants).
    public func run() async throws -> Report {
        var results: [ScenarioResult] = []
        let scenarios: [PowerScenario]
        if let chosen = self.scenarios {
            scenarios = chosen
        } else {
            let bundled = try Self.bundledScenarios()
            scenarios = bundled + (syntheticPlaces > 0 ? bundled.map { Self.dense($0, count: syntheticPlaces) } : [])
        }
        for scenario in scenarios {
            var reports: [StrategyReport] = []
            for s in strategies {
                reports.append(
                    try await PowerStrategyRunner.run(s, on: scenario, model: model, uploadWindow: uploadWindow))
            }
            results.append(
                ScenarioResult(
                    scenario: scenario.name, durationSeconds: scenario.durationSeconds,
                    regionCount: scenario.regions.count, reports: reports))
        }
        return Report(results: results, text: text(results))
    }

    func text(_ results: [ScenarioResult]) -> String {
        let isolated = model.unitCosts()
        let repeated = model.unitCosts(spacing: reportingInterval)
        var t = "Power model (docs/power.md): GPS fix \(Self.f(isolated.gpsFixJoules, 2)) J isolated, "
        t += "\(Self.f(repeated.gpsFixJoules, 2)) J every \(Self.f(reportingInterval, 0)) s; "
        t +=
            "Wi-Fi/cell fix \(Self.f(isolated.networkFixJoules, 2)) J every \(Self.f(model.regionMonitoringFixInterval, 0)) s while monitoring; "
        t += "wake-up \(Self.f(isolated.wakeUpJoules, 2)) J; upload \(Self.f(isolated.uploadJoules, 2)) J isolated, "
        t += "\(Self.f(repeated.uploadJoules, 2)) J every \(Self.f(reportingInterval, 0)) s; "
        t +=
            "baseline \(Self.f(isolated.baselineWatts, 3)) W; hybrid mode \(Self.f(model.gpsWatts + model.appAwakeWatts, 3)) W (GPS on, app awake); "
        t += "battery \(Self.f(model.batteryVolts, 2)) V.\n"
        if let w = uploadWindow {
            t += "Region monitoring uploads the events of each \(Self.f(w, 0)) s window together.\n"
        }
        for r in results {
            t += "\n\(r.scenario): \(Self.f(r.durationSeconds / 60, 1)) min, \(r.regionCount) regions\n\n"
            t +=
                "| strategy | GPS fixes | hybrid s | Wi-Fi/cell fixes | wake-ups | uploads | events | re-plans (unguaranteed) | energy J | mAh | J/h | mAh/h |\n"
            t += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            for s in r.reports {
                let u = s.usage
                let e = s.estimate
                t +=
                    "| \(s.strategy.name) | \(u.gpsFixes) | \(Self.f(u.continuousSeconds, 0)) | \(u.networkFixes) | \(u.wakeUps) | \(u.uploads) | \(s.events) | "
                t +=
                    "\(s.replans) (\(s.replansWithoutGuarantee)) | \(Self.f(e.joules, 1)) | \(Self.f(e.milliampHours, 3)) | \(Self.f(e.joulesPerHour, 0)) | "
                t += "\(Self.f(e.milliampHoursPerHour, 2)) |\n"
            }
        }
        return t
    }

    static func f(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }

    /// `simulate --power`: runs the comparison (the default one, or `comparison`) and writes its
    /// text to standard output.
    static func printComparison(_ comparison: PowerComparison = PowerComparison()) throws {
        var out = FileDescriptorOutput.standardOutput
        out.write(try runBlocking(comparison).text)
        out.flush()
    }

    /// Runs the comparison from synchronous code (the `simulate` command): the work runs in a
    /// detached task while the calling thread waits. Call it only from a thread outside the
    /// concurrency pool (the command-line tool's main thread).
    static func runBlocking(_ comparison: PowerComparison) throws -> Report {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.set(.success(try await comparison.run())) } catch { box.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try box.get()
    }
}

/// Hands the comparison's result from the detached task to the waiting thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<PowerComparison.Report, any Error> = .failure(CancellationError())
    func set(_ r: Result<PowerComparison.Report, any Error>) { lock.withLock { result = r } }
    func get() throws -> PowerComparison.Report { try lock.withLock { result }.get() }
}
