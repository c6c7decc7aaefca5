import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

/// A clock the test moves by hand (the planner's tier cache reads it); the lock makes it Sendable.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var _now = Date(timeIntervalSince1970: 0)
    var now: Date {
        get { lock.withLock { _now } }
        set { lock.withLock { _now = newValue } }
    }
}

/// Province → city → district children, served by an async loader that counts its calls.
actor TierLoader {
    var calls: [String: Int] = [:]
    let children: [String: [CatalogueEntry]]

    init() {
        func circle(
            _ id: String, _ lon: Double, _ lat: Double, _ r: Double, parent: String, kids: Bool = false
        ) -> CatalogueEntry {
            CatalogueEntry(
                region: .circle(identifier: id, center: Coordinate(uncheckedLatitude: lat, longitude: lon), radius: r),
                parent: parent, hasChildren: kids)
        }
        children = [
            "A": [
                circle("A1", 120.25, 30.25, 5_000, parent: "A", kids: true),
                circle("A2", 120.1, 30.42, 4_000, parent: "A"),
            ],
            "A1": [
                circle("A1a", 120.25, 30.25, 1_000, parent: "A1"), circle("A1b", 120.29, 30.25, 1_000, parent: "A1"),
            ],
            "B": [
                circle("B1", 120.75, 30.25, 5_000, parent: "B", kids: true),
                circle("B2", 120.9, 30.1, 4_000, parent: "B"),
            ],
            "B1": [circle("B1a", 120.75, 30.25, 1_500, parent: "B1")],
        ]
    }

    func load(_ parent: CatalogueEntry) async throws -> [CatalogueEntry] {
        calls[parent.identifier, default: 0] += 1
        return children[parent.identifier] ?? []
    }
}

@Suite struct TierTests {
    static func province(_ id: String, west: Double) -> CatalogueEntry {
        let ring = [(west, 30.0), (west + 0.5, 30.0), (west + 0.5, 30.5), (west, 30.5)].map {
            Coordinate(uncheckedLatitude: $0.1, longitude: $0.0)
        }
        return CatalogueEntry(
            region: Region(identifier: id, shape: .polygon(Polygon(exterior: ring))), hasChildren: true)
    }

    /// East along latitude 30.25 from 120.05° to 120.95° (province A into B), then back west to 120.27°.
    static func track() -> [LocationFix] {
        let lat = 30.25
        let step = 25.0 / 96_200 // 25 m of longitude per second
        var lons: [Double] = []
        var lon = 120.05
        while lon < 120.95 {
            lons.append(lon)
            lon += step
        }
        while lon > 120.27 {
            lons.append(lon)
            lon -= step
        }
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        return lons.enumerated().map { i, lon in
            LocationFix(
                subject: "car", coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                horizontalAccuracy: 8, timestamp: start.addingTimeInterval(Double(i)))
        }
    }

    struct Snapshot {
        var lon: Double
        var loaded: [String: Set<String>]
        var registered: Set<String>
    }

    static func drive(
        expiry: TimeInterval
    ) async throws
        -> (
            loader: TierLoader, events: [PlannerEvent], snapshots: [Snapshot], planner: RegionPlanner<EngineSlotMonitor>
        )
    {
        let loader = TierLoader()
        let clock = ManualClock()
        let source = PlannerSource(
            prefix: "gov.", catalogue: try Catalogue([province("A", west: 120.0), province("B", west: 120.5)]),
            cacheExpiry: expiry, loader: { try await loader.load($0) })
        let monitor = EngineSlotMonitor(subject: "car", policy: .precise)
        let sizing = ReplanSizing(
            policy: .precise, largestRegionSize: 30_000, maximumSpeed: 30,
            maximumFixInterval: 1, maximumAccuracy: 10)
        let planner = try RegionPlanner(
            monitor: monitor, sources: [source], sizing: sizing, policy: .precise, now: { clock.now })
        let fixes = track()
        clock.now = fixes[0].timestamp
        try await planner.start(at: fixes[0])
        var events: [PlannerEvent] = []
        var snapshots: [Snapshot] = []
        var marks = [120.26, 120.45, 120.76, 120.9]
        for fix in fixes {
            clock.now = fix.timestamp
            if monitor.locationUpdatesEnabled { events += try await planner.observe(fix) }
            for e in try monitor.process(fix) { events += try await planner.handle(e) }
            if let m = marks.first, fix.coordinate.longitude >= m {
                marks.removeFirst()
                var loaded: [String: Set<String>] = [:]
                for p in ["A", "A1", "B", "B1"] { loaded[p] = Set(await planner.loadedChildren(of: p, prefix: "gov.")) }
                snapshots.append(Snapshot(lon: m, loaded: loaded, registered: Set(monitor.registeredIdentifiers)))
            }
        }
        #expect(monitor.maximumRegistered <= 20)
        return (loader, events, snapshots, planner)
    }

    @Test("crossing from one province into another loads and unloads the right cities and districts")
    func provinceBorder() async throws {
        let (loader, events, snaps, planner) = try await Self.drive(expiry: 7_200)
        try #require(snaps.count == 4)
        // In city A1, district A1a.
        #expect(snaps[0].loaded["A"] == ["A1", "A2"])
        #expect(snaps[0].loaded["A1"] == ["A1a", "A1b"])
        #expect(snaps[0].registered.isSuperset(of: ["gov.A", "gov.B", "gov.A1", "gov.A2", "gov.A1a", "gov.A1b"]))
        // Left A1, still in A: A1's districts are gone, A's cities stay.
        #expect(snaps[1].loaded["A1"] == [])
        #expect(snaps[1].loaded["A"] == ["A1", "A2"])
        #expect(!snaps[1].registered.contains("gov.A1a"))
        // In B, city B1: A's tier is unloaded entirely, B's is loaded.
        #expect(snaps[2].loaded["A"] == [] && snaps[2].loaded["A1"] == [])
        #expect(snaps[2].loaded["B"] == ["B1", "B2"])
        #expect(snaps[2].loaded["B1"] == ["B1a"])
        #expect(snaps[2].registered.intersection(["gov.A1", "gov.A2", "gov.A1a", "gov.A1b"]).isEmpty)
        // Past B1: its district is unloaded.
        #expect(snaps[3].loaded["B1"] == [])
        // The story the app heard, in order.
        let story = events.map { "\($0.kind.rawValue) \($0.identifier)" }
        let expected = [
            "enter A", "enter A1", "enter A1a", "exit A1a", "enter A1b", "exit A1b", "exit A1",
            "exit A", "enter B", "enter B1", "enter B1a", "exit B1a", "exit B1",
            // and back west
            "enter B1", "enter B1a", "exit B1a", "exit B1", "exit B", "enter A", "enter A1", "enter A1b",
        ]
        #expect(story.starts(with: expected), "\(story)")
        #expect(events.allSatisfy { $0.source == "gov." })
        // Back in A1 at the end: A's tier is in the catalogue again, B's is not.
        let catalogue = try #require(await planner.catalogue(prefix: "gov."))
        #expect(catalogue.contains("A1") && catalogue.contains("A1b"))
        #expect(!catalogue.contains("B1") && !catalogue.contains("B1a"))
        // Every parent was loaded once: the way back came from the fresh cache.
        #expect(await loader.calls == ["A": 1, "A1": 1, "B": 1, "B1": 1])
        #expect(await planner.statistics.loaderCalls == 4)
        #expect(await planner.statistics.cacheHits >= 3)
    }

    @Test("an expired cache calls the loader again")
    func expiry() async throws {
        // The way back into A comes about an hour after A was first loaded.
        let (loader, _, _, planner) = try await Self.drive(expiry: 600)
        #expect(await loader.calls["A"] == 2)
        #expect(await loader.calls["A1"] == 2)
        #expect(await planner.statistics.loaderCalls == loader.calls.values.reduce(0, +))
    }

    @Test("a failing loader is reported and leaves the parent without children")
    func loaderFailure() async throws {
        struct Offline: Error {}
        let source = PlannerSource(
            prefix: "gov.", catalogue: try Catalogue([Self.province("A", west: 120.0)]),
            loader: { _ in throw Offline() })
        let monitor = EngineSlotMonitor(subject: "car", policy: .precise)
        let planner = try RegionPlanner(
            monitor: monitor, sources: [source],
            sizing: ReplanSizing(
                policy: .precise, largestRegionSize: 30_000,
                maximumSpeed: 30, maximumFixInterval: 1), policy: .precise)
        let fix = Self.track()[0]
        try await planner.start(at: fix)
        let events = try await monitor.process(fix).asyncFlatMap { try await planner.handle($0) }
        #expect(events.map(\.identifier) == ["A"])
        let errors = await planner.loaderErrors
        #expect(errors.count == 1)
        if case .loaderFailed(let parent, let underlying)? = errors.first {
            #expect(parent == "A" && underlying.error is Offline)
        } else {
            Issue.record("\(errors)")
        }
        #expect(await planner.loadedChildren(of: "A", prefix: "gov.").isEmpty)
        #expect(monitor.registeredIdentifiers == ["gov.A"])
    }
}

extension Array {
    func asyncFlatMap<T>(_ f: (Element) async throws -> [T]) async rethrows -> [T] {
        var out: [T] = []
        for e in self { out += try await f(e) }
        return out
    }
}
