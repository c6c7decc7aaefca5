import Foundation
import Geodesy
import Geofencing
import RegionPlanner

/// Runs a ``PowerStrategy`` over a ``PowerScenario`` and counts the work the model prices.
///
/// ```swift
/// let scenario = PowerScenario(name: "walk", fixes: fixes, regions: shops, maximumSpeed: 3)
/// for s in [PowerStrategy.continuousReporting(intervalSeconds: 10), .nearestRegions(slots: 20),
///           .tieredRegions(clusterMeters: 3_000)] {
///     let r = try await PowerStrategyRunner.run(s, on: scenario, model: PowerModel())
///     print(s.name, r.usage, r.estimate.milliampHoursPerHour)
/// }
/// ```
///
/// - Continuous reporting: one GPS fix, one upload and one background delivery every
///   interval of track time (the first fix at the track's start); the server runs the engine
///   (Core Location's hysteresis) on those fixes to count the events.
/// - Region monitoring (both kinds): a ``SimulatedDevice`` (iOS, always authorised, Core
///   Location hysteresis) sees every track fix — standing in for the system's own location
///   knowledge, which the model prices as one Wi-Fi / cell position every
///   ``PowerModel/regionMonitoringFixInterval`` — while the app stays suspended; wake-ups are
///   the device's own count (``DeviceActivity/wakeUps`` + relaunches: an event inside a running
///   wake window does not wake the app again). Each catalogue event is one upload, or, with an
///   `uploadWindow`, each window of that many seconds with events is (the server then hears of
///   every event within the window); each tier download is one upload. The first plan is made while the app is in the foreground (not a wake-up).
///   After each re-plan event the planner asks for one fix (priced as an isolated GPS fix);
///   in hybrid mode (``PowerStrategy/hybridRegions(slots:)``) the GPS runs and the app stays
///   awake (``PowerUsage/continuousSeconds``).
///
/// Deterministic: no clock is read; cost O(fixes × regions monitored).
public enum PowerStrategyRunner {
    /// Runs `strategy` on `scenario`.
    /// - Throws: ``PlannerError`` if the catalogue is invalid (duplicate identifiers, bad regions).
    public static func run(
        _ strategy: PowerStrategy, on scenario: PowerScenario,
        model: PowerModel = PowerModel(), uploadWindow: TimeInterval? = nil
    ) async throws -> StrategyReport {
        let uploads = EventUploads(window: uploadWindow)
        switch strategy {
        case .continuousReporting(let interval):
            return try continuous(interval: interval, scenario, model, strategy)
        case .nearestRegions(let slots), .hybridRegions(let slots):
            let catalogue = try Catalogue(scenario.regions.map { CatalogueEntry(region: $0) })
            let source = PlannerSource(prefix: "r.", catalogue: catalogue)
            return try await monitored(
                source: source, slots: slots, parents: [], uploads, scenario, model, strategy)
        case .tieredRegions(let cluster):
            let (parents, children) = tiers(
                of: scenario.regions, clusterMeters: cluster,
                margin: 200 + scenario.maximumSpeed * 30)
            let catalogue = try Catalogue(parents)
            let source = PlannerSource(prefix: "t.", catalogue: catalogue) { parent in
                children[parent.identifier] ?? []
            }
            return try await monitored(
                source: source, slots: 20, parents: Set(parents.map(\.identifier)), uploads,
                scenario, model, strategy)
        }
    }

    /// The `q` quantile of `values` (nearest rank), nil when empty.
    static func percentile(_ q: Double, of values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
    }

    // MARK: Continuous reporting

    static func continuous(
        interval: Double, _ scenario: PowerScenario, _ model: PowerModel,
        _ strategy: PowerStrategy
    ) throws -> StrategyReport {
        guard let start = scenario.fixes.first?.timestamp, interval > 0 else {
            return report(strategy, PowerUsage(durationSeconds: scenario.durationSeconds), interval, model, 0, 0, 0)
        }
        // The fixes go to a server, which judges them by its own default rule (`geofence serve`
        // uses `precise`), not by Core Location's on-device one.
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: scenario.regions)
        var samples = 0
        var events = 0
        var next = start
        for fix in scenario.fixes where fix.timestamp >= next {
            samples += 1
            events += ((try? engine.process(fix)) ?? []).filter { $0.kind != .dwell }.count
            while next <= fix.timestamp { next = next.addingTimeInterval(interval) }
        }
        let usage = PowerUsage(
            gpsFixes: samples, wakeUps: samples, uploads: samples,
            durationSeconds: scenario.durationSeconds)
        return report(strategy, usage, interval, model, events, 0, 0)
    }

    // MARK: Region monitoring

    static func monitored(
        source: PlannerSource, slots: Int, parents: Set<String>, _ eventUploads: EventUploads,
        _ scenario: PowerScenario, _ model: PowerModel,
        _ strategy: PowerStrategy
    ) async throws -> StrategyReport {
        guard let first = scenario.fixes.first else {
            return report(strategy, PowerUsage(), nil, model, 0, 0, 0)
        }
        var settings = DeviceSettings()
        settings.authorization = .authorizedAlways
        settings.regionLimit = max(slots, 2)
        let device = SimulatedDevice(settings: settings, start: first.timestamp)
        let monitor = try await Monitor("power", device: device)
        let slotMonitor = await MonitorSlotMonitor(monitor: monitor)
        let largest = source.catalogue.entries.map { Self.size(of: $0.region) }.max() ?? 100
        // The accuracy 99 % of the scenario's fixes claim or better (the policy's assumed accuracy
        // for fixes without one): the sizing is stated for it, so that one ±177 m outlier among
        // ±15 m fixes does not size every plan for ±177 m (coarser fixes are outside the guarantee).
        let accuracy = Self.percentile(
            0.99, of: scenario.fixes.map { $0.horizontalAccuracy ?? settings.policy.assumedAccuracy })
        let sizing = ReplanSizing(
            policy: settings.policy, largestRegionSize: largest,
            maximumSpeed: scenario.maximumSpeed, maximumFixInterval: maximumGap(scenario.fixes),
            maximumAccuracy: accuracy)
        let clock = TrackClock(first.timestamp)
        let hybrid: Bool = if case .hybridRegions = strategy { true } else { false }
        let planner = try RegionPlanner(
            monitor: slotMonitor, sources: [source], sizing: sizing,
            policy: settings.policy, slots: min(slots, slotMonitor.slotCapacity),
            allowsHybrid: hybrid, now: { clock.now })
        try await planner.start(at: first)
        await device.setAppState(.suspended)
        var eventTimes: [Date] = []
        func take(_ events: [PlannerEvent]) {
            for p in events where !parents.contains(p.identifier) && p.kind != .dwell {
                eventTimes.append(p.event.time)
            }
        }
        var probes = 0
        for fix in scenario.fixes {
            clock.now = fix.timestamp
            // Continuous updates (hybrid mode, or a re-plan waiting for a fix) reach the app first.
            if slotMonitor.locationUpdatesRequested {
                // Outside hybrid mode this is the one GPS fix a re-plan asks for.
                if await planner.status.mode == .slots { probes += 1 }
                take(try await planner.observe(fix))
            }
            try? await device.receive(.fix(fix))
            for e in slotMonitor.takeEvents() { take(try await planner.handle(e)) }
        }
        let events = eventTimes.count
        let activity = await device.activity
        let statistics = await planner.statistics
        let downloads = statistics.loaderCalls
        let duration = scenario.durationSeconds
        let usage = PowerUsage(
            gpsFixes: probes,
            networkFixes: Int((duration / model.regionMonitoringFixInterval).rounded(.down)),
            wakeUps: activity.wakeUps + activity.relaunches,
            uploads: eventUploads.count(eventTimes) + downloads, durationSeconds: duration,
            continuousSeconds: statistics.hybridSeconds)
        await monitor.close()
        var r = report(strategy, usage, nil, model, events, statistics.replans, downloads)
        r.replansWithoutGuarantee = statistics.replansWithoutGuarantee
        r.hybridSeconds = statistics.hybridSeconds
        return r
    }

    /// Groups regions into parents: greedy clusters of regions whose centres lie within
    /// `clusterMeters` of the cluster's first region (the earliest such cluster); each parent is
    /// a circle around the members' mean centre covering every member plus `margin` metres (so
    /// that children are loaded before the user can reach them).
    static func tiers(
        of regions: [Region], clusterMeters: Double, margin: Double
    )
        -> (parents: [CatalogueEntry], children: [String: [CatalogueEntry]])
    {
        var clusters: [(seed: Coordinate, members: [Region])] = []
        var seeds = ClusterSeeds(clusterMeters: clusterMeters)
        for r in regions {
            let c = center(of: r)
            if let i = seeds.first(within: clusterMeters, of: c, seedOf: { clusters[$0].seed }) {
                clusters[i].members.append(r)
            } else {
                seeds.insert(clusters.count, at: c)
                clusters.append((c, [r]))
            }
        }
        var parents: [CatalogueEntry] = []
        var children: [String: [CatalogueEntry]] = [:]
        for (i, cluster) in clusters.enumerated() {
            let centers = cluster.members.map(center(of:))
            let mean = Coordinate(
                uncheckedLatitude: centers.map(\.latitude).reduce(0, +) / Double(centers.count),
                longitude: centers.map(\.longitude).reduce(0, +) / Double(centers.count))
            let reach =
                cluster.members.map { Geodesic.wgs84.inverse(mean, center(of: $0)).distance + size(of: $0) }.max() ?? 0
            let id = "parent-\(i + 1)"
            parents.append(
                CatalogueEntry(
                    region: .circle(identifier: id, center: mean, radius: reach + margin),
                    hasChildren: true))
            children[id] = cluster.members.map { CatalogueEntry(region: $0, parent: id) }
        }
        return (parents, children)
    }

    static func center(of region: Region) -> Coordinate {
        switch region.shape {
        case .circle(let c, _): return c
        case .polygon(let p): return mean(p.exterior)
        case .multiPolygon(let ps): return mean(ps.flatMap(\.exterior))
        }
    }

    /// A circle's radius, or the farthest vertex from the mean of a polygon's vertices.
    static func size(of region: Region) -> Double {
        switch region.shape {
        case .circle(_, let r): return r
        case .polygon(let p): return spread(p.exterior)
        case .multiPolygon(let ps): return spread(ps.flatMap(\.exterior))
        }
    }

    static func mean(_ points: [Coordinate]) -> Coordinate {
        guard !points.isEmpty else { return Coordinate(uncheckedLatitude: 0, longitude: 0) }
        let n = Double(points.count)
        return Coordinate(
            uncheckedLatitude: points.map(\.latitude).reduce(0, +) / n,
            longitude: points.map(\.longitude).reduce(0, +) / n)
    }

    static func spread(_ points: [Coordinate]) -> Double {
        let m = mean(points)
        return points.map { Geodesic.wgs84.inverse(m, $0).distance }.max() ?? 0
    }

    static func maximumGap(_ fixes: [LocationFix]) -> TimeInterval {
        var gap = 1.0
        for (a, b) in zip(fixes, fixes.dropFirst()) { gap = max(gap, b.timestamp.timeIntervalSince(a.timestamp)) }
        return gap
    }

    static func report(
        _ strategy: PowerStrategy, _ usage: PowerUsage, _ spacing: TimeInterval?,
        _ model: PowerModel, _ events: Int, _ replans: Int, _ downloads: Int
    ) -> StrategyReport {
        StrategyReport(
            strategy: strategy, usage: usage, spacing: spacing,
            estimate: model.estimate(usage, spacing: spacing),
            events: events, replans: replans, replansWithoutGuarantee: 0, downloads: downloads)
    }
}

/// The cluster seeds of ``PowerStrategyRunner/tiers(of:clusterMeters:margin:)`` in bands of
/// latitude at least `clusterMeters` tall, so that a region is measured only against seeds in
/// its band and the two beside it (a catalogue of 200,000 regions groups in well under a
/// second instead of comparing every region with every cluster).
struct ClusterSeeds {
    /// Degrees of latitude per band: `clusterMeters` over the shortest metres per degree
    /// (110,574 m at the equator), so no seed within `clusterMeters` lies two bands away.
    let bandDegrees: Double
    private var bands: [Int: [(index: Int, seed: Coordinate)]] = [:]

    init(clusterMeters: Double) { bandDegrees = max(clusterMeters, 1) / 110_000 }

    private func band(_ c: Coordinate) -> Int { Int((c.latitude / bandDegrees).rounded(.down)) }

    mutating func insert(_ index: Int, at seed: Coordinate) { bands[band(seed), default: []].append((index, seed)) }

    /// The lowest-numbered cluster whose seed lies within `distance` of `c`.
    func first(within distance: Double, of c: Coordinate, seedOf: (Int) -> Coordinate) -> Int? {
        // A longitude difference no seed within `distance` can exceed at these latitudes:
        // metres per degree of longitude shrink with the cosine of the band's outer latitude.
        let outer = min(89.9, abs(c.latitude) + 2 * bandDegrees)
        let lonLimit = distance / (110_000 * cos(outer * .pi / 180)) + 1e-9
        var best: Int?
        let b = band(c)
        for k in (b - 1)...(b + 1) {
            for (index, seed) in bands[k] ?? [] where best.map({ index < $0 }) ?? true {
                let dLon = abs(seed.longitude - c.longitude)
                guard min(dLon, 360 - dLon) <= lonLimit else { continue }
                if Geodesic.wgs84.inverse(seed, c).distance <= distance { best = index }
            }
        }
        return best
    }
}

/// How region monitoring sends its events to the server: one upload per event, at once, or the
/// events of each `window` seconds (counted from the epoch) in one upload.
struct EventUploads {
    var window: TimeInterval?

    func count(_ times: [Date]) -> Int {
        guard let window, window > 0 else { return times.count }
        return Set(times.map { ($0.timeIntervalSince1970 / window).rounded(.down) }).count
    }
}

/// The planner's clock during a run: the current fix's time (set between the planner's
/// calls, read by it; a lock makes it Sendable).
final class TrackClock: @unchecked Sendable {
    private let lock = NSLock()
    private var _now: Date
    init(_ start: Date) { _now = start }
    var now: Date {
        get { lock.withLock { _now } }
        set { lock.withLock { _now = newValue } }
    }
}
