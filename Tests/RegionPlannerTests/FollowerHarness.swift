import DriveSupport
import Foundation
import GeoFormats
import Geodesy
import Geofencing

@testable import RegionPlanner

/// A device-plan server in a test: answers `GET …/plan?lat=&lon=&slots=` from a catalogue with
/// the server's rule (``SlotFill`` over the nearest regions by boundary distance, the circle
/// sized by ``ReplanSizing`` for the nearest region left out, capped at a 100 km search
/// radius; `guaranteed: false` with the smallest radius where no radius keeps the guarantee).
final class PlanServerStub: PlanTransport, @unchecked Sendable {
    let catalogue: Catalogue
    let sizing: ReplanSizing
    /// The circle features as the server writes them, by identifier.
    let features: [String: String]
    private let lock = NSLock()
    private var asked: [(point: Coordinate, slots: Int)] = []

    /// The search radius standing for the nearest region left out when none is seen (metres).
    static let searchRadius = 100_000.0

    init(regions: [(id: String, center: Coordinate, radius: Double)], sizing: ReplanSizing) throws {
        var features: [String: String] = [:]
        var entries: [CatalogueEntry] = []
        for r in regions {
            let json =
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[\#(r.center.longitude),\#(r.center.latitude)]},"properties":{"id":"\#(r.id)","radius":\#(r.radius)},"hasChildren":false}"#
            features[r.id] = json
            entries.append(CatalogueEntry(region: try Self.region(json)))
        }
        self.features = features
        self.catalogue = try Catalogue(entries)
        self.sizing = sizing
    }

    /// The engine's region for a feature, read as the phone reads a plan's regions.
    static func region(_ feature: String) throws -> Region {
        Region(feature: try GeoJSONRegionReader.read(document: try JSONValue(parsing: Array(feature.utf8)))[0])
    }

    /// The points (and slot counts) plans were asked for, in order.
    var requests: [(point: Coordinate, slots: Int)] { lock.withLock { asked } }

    func get(_ url: String, headers: [(String, String)]) async throws -> PlanHTTPResponse {
        guard let query = URLComponents(string: url)?.queryItems,
            let lat = query.first(where: { $0.name == "lat" })?.value.flatMap(Double.init),
            let lon = query.first(where: { $0.name == "lon" })?.value.flatMap(Double.init),
            let slots = query.first(where: { $0.name == "slots" })?.value.flatMap(Int.init)
        else { throw URLError(.badURL) }
        let point = Coordinate(uncheckedLatitude: lat, longitude: lon)
        lock.withLock { asked.append((point, slots)) }
        let near = catalogue.nearest(slots, to: point)
        let (keep, other) = SlotFill.fill(
            slots - 1, keeping: [], from: near, id: \.entry.identifier, distance: \.distance)
        let chosen = near.filter { keep.contains($0.entry.identifier) }
        let radius = sizing.radius(nearestUnregistered: min(other, Self.searchRadius))
        let regions = chosen.map { features[$0.entry.identifier]! }.joined(separator: ",")
        let body =
            #"{"device":"p","center":{"latitude":\#(lat),"longitude":\#(lon)},"slots":\#(slots),"monitoringEnabled":true,"maxAgeSeconds":86400,"guaranteed":\#(radius != nil),"replanRadiusMeters":\#(radius ?? sizing.minimumRadius),"regions":[\#(regions)]}"#
        return PlanHTTPResponse(
            status: 200, headers: ["cache-control": "private, max-age=86400"], body: Array(body.utf8))
    }
}

/// Runs one engine holding the whole catalogue and a 20-slot ``ServerPlanFollower`` fed by a
/// ``PlanServerStub`` side by side on the same fixes, with relaunches (the follower discarded,
/// the monitor — the operating system — kept, a new follower restored from the store).
///
/// Per fix: a relaunch if one is due; the fix to the follower if the app receives it (the first
/// fix, then while the follower asks for continuous updates); the fix to the monitor and its
/// events to the follower; the fix to the reference engine.
struct FollowerHarness {
    struct Options {
        var relaunchBefore: Set<Int> = []
        /// Relaunch right after the n-th fix (0-based ordinals) whose `observe` returned events.
        var relaunchAfterHybridEvents: Set<Int> = []
        var allowsHybrid = true
        /// The monitor says it may see a fix before the app (a phone), so regions change hands
        /// only a next fix's clearance inside their side.
        var monitorMayEvaluateFirst = false
        var store: (any FollowerStateStore) = MemoryFollowerStore()
    }

    struct Result {
        var reference: [EventKey]
        var followed: [EventKey]
        var crossedAtDifferences: Int
        var statistics: FollowerStatistics
        var maximumRegistered: Int
        var relaunchModes: [PlannerMode]
        var durationSeconds: Double
        var errors: [PlanSourceError]
        var requests: [(point: Coordinate, slots: Int)]

        var missed: Set<EventKey> { Set(reference).subtracting(followed) }
        var extra: Set<EventKey> { Set(followed).subtracting(reference) }
        var hybridShare: Double { durationSeconds > 0 ? statistics.hybridSeconds / durationSeconds : 0 }

        var summary: String {
            let s = statistics
            return "\(reference.count) events, missed \(missed.count), extra \(extra.count), "
                + "followed \(followed.count); hybrid \(String(format: "%.0f", s.hybridSeconds)) s = "
                + "\(String(format: "%.1f", 100 * hybridShare)) % (\(s.hybridEntries) entries); "
                + "plans \(s.plansApplied), working sets \(s.workingSetFetches), probes \(s.probes), "
                + "requests \(requests.count), relaunches \(relaunchModes.map(\.rawValue))"
        }
    }

    /// Runs the drive on the drive harnesses' own thread (``DriveExecutor``), off Swift's
    /// cooperative pool, whatever the calling test's traits.
    static func run(
        server: PlanServerStub, fixes: [LocationFix], options: Options = Options()
    ) async throws -> Result {
        try await withDriveExecutor { try await drive(server: server, fixes: fixes, options: options) }
    }

    private static func drive(
        server: PlanServerStub, fixes: [LocationFix], options: Options
    ) async throws -> Result {
        var reference = Engine(policy: .coreLocation)
        for r in server.features.values { try reference.add(try PlanServerStub.region(r)) }
        let monitor = EngineSlotMonitor(
            subject: fixes[0].subject, policy: .coreLocation, slotCapacity: 20,
            evaluatesFixesFirst: options.monitorMayEvaluateFirst)
        func makeFollower() -> ServerPlanFollower<EngineSlotMonitor> {
            let source = ServerPlanSource(server: "http://stub", key: "k", device: "p", transport: server)
            return ServerPlanFollower(
                monitor: monitor, source: source, store: options.store, allowsHybrid: options.allowsHybrid)
        }
        var follower = makeFollower()
        // Counters are per launch: summed over the launches.
        var earlier = FollowerStatistics()
        var expected: [EventKey] = []
        var got: [EventKey] = []
        var crossed: [EventKey: Date] = [:]
        var gotCrossed: [EventKey: Date] = [:]
        var modes: [PlannerMode] = []
        var errors: [PlanSourceError] = []
        var eventFixes = 0
        var relaunchNext = false
        func take(_ events: [PlannerEvent]) {
            for p in events where p.kind != .dwell {
                let key = EventKey(kind: p.kind, region: p.identifier, time: p.event.time)
                got.append(key)
                gotCrossed[key] = p.event.crossedAt
            }
        }
        for (i, fix) in fixes.enumerated() {
            if options.relaunchBefore.contains(i) || relaunchNext {
                modes.append(await follower.mode)
                errors += await follower.errors
                earlier = earlier + (await follower.statistics)
                follower = makeFollower()
                let restored = await follower.restore()
                precondition(restored)
            }
            relaunchNext = false
            if i == 0 || monitor.locationUpdatesEnabled {
                let events = await follower.observe(fix)
                if !events.isEmpty {
                    relaunchNext = options.relaunchAfterHybridEvents.contains(eventFixes)
                    eventFixes += 1
                }
                take(events)
            }
            for e in try monitor.process(fix) { take(await follower.handle(e)) }
            for e in try reference.process(fix) where e.kind != .dwell {
                let key = EventKey(kind: e.kind, region: e.regionID, time: e.time)
                expected.append(key)
                crossed[key] = e.crossedAt
            }
        }
        errors += await follower.errors
        var differences = 0
        for (k, c) in crossed where gotCrossed[k].map({ $0 != c }) ?? false { differences += 1 }
        return Result(
            reference: expected.sorted(by: PlannerHarness.order), followed: got.sorted(by: PlannerHarness.order),
            crossedAtDifferences: differences, statistics: earlier + (await follower.statistics),
            maximumRegistered: monitor.maximumRegistered, relaunchModes: modes,
            durationSeconds: fixes.last!.timestamp.timeIntervalSince(fixes[0].timestamp), errors: errors,
            requests: server.requests)
    }
}

extension FollowerStatistics {
    static func + (a: Self, b: Self) -> Self {
        var s = a
        s.plansApplied += b.plansApplied
        s.registrations += b.registrations
        s.removals += b.removals
        s.failedRequests += b.failedRequests
        s.glitchesRejected += b.glitchesRejected
        s.hybridEntries += b.hybridEntries
        s.hybridSeconds += b.hybridSeconds
        s.workingSetFetches += b.workingSetFetches
        s.softLoads += b.softLoads
        s.probes += b.probes
        return s
    }
}

/// The dense-area data set (fixed seeds): a town of 800 circles of 50–600 m within 3 km of its
/// centre, 150 circles over the 40 km × 10 km around it, and a 56 km drive with 16 km of
/// loops through the town.
enum DenseTown {
    static let frame = Frame(latitude: 47.0, longitude: 8.0)
    static let town = (east: 20_000.0, north: 5_000.0)

    static let regions: [(id: String, center: Coordinate, radius: Double)] = {
        var rng = SplitMix64(seed: 3_207)
        var out: [(id: String, center: Coordinate, radius: Double)] = []
        for i in 0..<800 {
            let d = 3_000 * rng.uniform(0, 1).squareRoot()
            let a = rng.uniform(0, 2 * .pi)
            let radius = 50 + 550 * pow(rng.uniform(0, 1), 2)
            out.append(("t\(i)", frame.coordinate(town.east + d * sin(a), town.north + d * cos(a)), radius))
        }
        for i in 0..<150 {
            out.append(
                ("o\(i)", frame.coordinate(rng.uniform(0, 40_000), rng.uniform(0, 10_000)), rng.uniform(50, 800)))
        }
        return out
    }()

    /// The server's default plan assumptions (docs/server.md): Core Location, 40 m/s, a fix a
    /// second, ±100 m, 250 m glitches; the follower's defaults are the same.
    static let sizing = ReplanSizing(
        policy: .coreLocation, largestRegionSize: Region.maximumRadius, maximumSpeed: 40,
        maximumFixInterval: 1, maximumAccuracy: 100, glitchAllowance: 250)

    /// The share of the drive's time within `radius` metres of the town centre.
    static func townShare(_ fixes: [LocationFix], radius: Double = 3_000) -> Double {
        var inside = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            let p = frame.projection.project(a.coordinate)
            if hypot(p.east - town.east, p.north - town.north) <= radius {
                inside += b.timestamp.timeIntervalSince(a.timestamp)
            }
        }
        return inside / fixes.last!.timestamp.timeIntervalSince(fixes[0].timestamp)
    }

    /// West to east with loops through the town, ~14 m/s (±30 %), one fix a second,
    /// AR(1) GPS noise σ 8 m, honest accuracies; single 5 km glitches at `glitches`.
    static func drive(seed: UInt64 = 11, glitches: [Int] = []) -> [LocationFix] {
        var rng = SplitMix64(seed: seed)
        let points: [(Double, Double)] = [
            (0, 4_000), (12_000, 5_500), (town.east - 2_500, town.north - 300),
            (town.east + 1_500, town.north + 1_200), (town.east + 600, town.north + 2_400),
            (town.east - 1_800, town.north + 1_000), (town.east - 200, town.north - 2_200),
            (town.east + 2_600, town.north - 600), (28_000, 4_800), (40_000, 6_000),
        ]
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        var fixes: [LocationFix] = []
        var t = 0.0
        var ex = 0.0
        var ey = 0.0
        let rho = 0.95
        let sigma = 8.0
        for (a, b) in zip(points, points.dropFirst()) {
            let leg = hypot(b.0 - a.0, b.1 - a.1)
            var s = 0.0
            while s < leg {
                let x = a.0 + (b.0 - a.0) * s / leg
                let y = a.1 + (b.1 - a.1) * s / leg
                ex = rho * ex + (1 - rho * rho).squareRoot() * sigma * rng.nextGaussian()
                ey = rho * ey + (1 - rho * rho).squareRoot() * sigma * rng.nextGaussian()
                var c = frame.coordinate(x + ex, y + ey)
                var accuracy = max(5, hypot(ex, ey) * 1.3)
                if glitches.contains(fixes.count) {
                    c = Geodesic.wgs84.direct(from: c, azimuth: rng.uniform(0, 360), distance: 5_000).coordinate
                    accuracy = 10
                }
                fixes.append(
                    LocationFix(
                        subject: "car", coordinate: c, horizontalAccuracy: accuracy,
                        timestamp: start.addingTimeInterval(t)
                    ))
                s += 14 * rng.uniform(0.7, 1.3)
                t += 1
            }
        }
        return fixes
    }
}
