import Foundation
import Geodesy
import Geofencing
import Logging
import Testing

@testable import GeofenceServer

/// A tenant's engine rebuilt from its snapshot plus the journal after it is the engine an
/// uninterrupted server has, on both stores; a snapshot that cannot be trusted is logged and
/// ignored.
@Suite("Engine snapshots in the store: start-up from snapshot + journal tail")
struct SnapshotTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let centre = Coordinate(uncheckedLatitude: 31.2394, longitude: 121.4998)

    /// 40 circles of 60–300 m in a 3 km square, some with dwell or an initial exit.
    static func regions(seed: UInt64 = 1) -> [Region] {
        var rng = SplitMix64(seed: seed)
        return (0..<40).map { i in
            let c = Coordinate(
                uncheckedLatitude: centre.latitude + (rng.nextUnit() - 0.5) * 0.03,
                longitude: centre.longitude + (rng.nextUnit() - 0.5) * 0.03)
            return .circle(
                identifier: "r\(i)", center: c, radius: 60 + rng.nextUnit() * 240,
                dwell: i % 4 == 0 ? 45 : nil, initialTrigger: i % 9 == 0 ? [.exit] : [])
        }
    }

    /// Batches of 5 fixes of 4 devices on random walks, steps `steps` (seconds after t0, 3 s apart).
    static func batches(_ steps: Range<Int>, seed: UInt64 = 2) -> [(device: String, fixes: [LocationFix])] {
        var rng = SplitMix64(seed: seed)
        var pos = (0..<4).map { _ in
            (
                lat: centre.latitude + (rng.nextUnit() - 0.5) * 0.02,
                lon: centre.longitude + (rng.nextUnit() - 0.5) * 0.02
            )
        }
        var perDevice: [[LocationFix]] = Array(repeating: [], count: 4)
        for k in 0..<steps.upperBound {
            for d in 0..<4 {
                pos[d].lat += (rng.nextUnit() - 0.5) * 0.0008
                pos[d].lon += (rng.nextUnit() - 0.5) * 0.0008
                let accuracy = 4 + rng.nextUnit() * 30
                guard steps.contains(k) else { continue }
                perDevice[d].append(
                    LocationFix(
                        subject: "dev-\(d)",
                        coordinate: Coordinate(uncheckedLatitude: pos[d].lat, longitude: pos[d].lon),
                        horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(Double(k) * 3 + Double(d) * 0.1))
                )
            }
        }
        var out: [(String, [LocationFix])] = []
        for start in stride(from: 0, to: perDevice[0].count, by: 5) {
            for d in 0..<4 { out.append(("dev-\(d)", Array(perDevice[d][start..<min(start + 5, perDevice[d].count)]))) }
        }
        return out
    }

    static func feed(_ runtime: TenantRuntime, _ batches: [(device: String, fixes: [LocationFix])]) async throws {
        for b in batches {
            _ = try await runtime.ingest(device: b.device, fixes: b.fixes, fieldPrefix: "fixes", now: t0)
        }
    }

    /// The events an engine gives for later fixes, and its states before them: what must be
    /// equal between an uninterrupted engine and a rebuilt one.
    static func behaviour(
        of engine: Engine, regions: [String], then later: [(device: String, fixes: [LocationFix])]
    ) -> [String] {
        var e = engine
        var out: [String] = []
        for s in e.subjects.sorted() {
            out.append("\(s) last \(String(describing: e.lastFix(of: s))) pending \(e.pendingRegions(of: s).sorted())")
            for r in regions { out.append("\(s) \(r) \(e.state(of: s, in: r))") }
        }
        for b in later {
            for f in b.fixes {
                for ev in (try? e.process(f)) ?? [] {
                    out.append("\(ev.subject) \(ev.regionID) \(ev.kind) \(ev.time.timeIntervalSince1970)")
                }
            }
        }
        return out
    }

    static func runtime(
        _ store: any ServerStore, snapshots: Bool = true, logger: Logger = Harness.quietLogger()
    ) -> TenantRuntime {
        TenantRuntime(
            tenant: "t", store: store, policy: .precise,
            snapshotSchedule: SnapshotSchedule(
                everyFixes: 1_000_000, interval: .seconds(1_000_000), isEnabled: snapshots),
            logger: logger)
    }

    @Test(
        "snapshot + journal tail (with region changes after the snapshot) rebuilds the uninterrupted engine",
        arguments: StoreKind.allCases)
    func snapshotPlusTailEqualsUninterrupted(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let regions = Self.regions()
            let live = Self.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(regions, create: false, now: Self.t0)
            try await Self.feed(live, Self.batches(0..<60))
            let position = try #require(await live.takeSnapshot(now: Self.t0))
            #expect(position > 1)
            // After the snapshot: more fixes, a new region, a moved one and a deleted one.
            try await Self.feed(live, Self.batches(60..<90))
            _ = try await live.upsert(
                [
                    .circle(identifier: "late", center: Self.centre, radius: 400),
                    .circle(identifier: "r3", center: Self.centre, radius: 150),
                ], create: false, now: Self.t0)
            _ = try await live.delete(id: "r5", now: Self.t0)
            try await Self.feed(live, Self.batches(90..<120))

            let ids = regions.map(\.identifier) + ["late"]
            let later = Self.batches(120..<200)
            let expected = Self.behaviour(of: await live.engine, regions: ids, then: later)
            #expect(expected.filter { $0.contains(" enter ") || $0.contains(" exit ") }.count > 5)

            let fromSnapshot = Self.runtime(store)
            try await fromSnapshot.rebuild()
            let start = try await store.startupJournal(tenant: "t", useSnapshot: true)
            #expect(start.snapshot?.position == position)
            // Only the journal after the snapshot is replayed: 48 fix batches and 2 region changes
            // (of 99 entries), and the head is the one region import.
            #expect(start.tail.count == 50)
            #expect(start.head.count == 1)
            #expect(Self.behaviour(of: await fromSnapshot.engine, regions: ids, then: later) == expected)

            let fullReplay = Self.runtime(store, snapshots: false)
            try await fullReplay.rebuild()
            #expect(Self.behaviour(of: await fullReplay.engine, regions: ids, then: later) == expected)
            try await store.close()
        }
    }

    @Test("a snapshot never replaces one that covers more of the journal", arguments: StoreKind.allCases)
    func laterSnapshotIsKept(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let live = Self.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(Self.regions(), create: false, now: Self.t0)
            try await Self.feed(live, Self.batches(0..<20))
            let early = try #require(try await store.snapshotPosition(tenant: "t"))
            try await Self.feed(live, Self.batches(20..<40))
            let position = try #require(await live.takeSnapshot(now: Self.t0))
            #expect(position > early)
            let stale = await live.engine.subjectSnapshot()
            #expect(try await store.saveSnapshot(tenant: "t", position: early, data: stale, now: Self.t0) == false)
            #expect(try await store.startupJournal(tenant: "t", useSnapshot: true).snapshot?.position == position)
            try await store.close()
        }
    }

    @Test(
        "a damaged, foreign-version or other-catalogue snapshot is logged and the whole journal replayed instead",
        arguments: StoreKind.allCases)
    func untrustedSnapshotFallsBack(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let regions = Self.regions()
            let live = Self.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(regions, create: false, now: Self.t0)
            try await Self.feed(live, Self.batches(0..<40))
            let good = await live.engine.subjectSnapshot()
            let later = Self.batches(40..<100)
            let expected = Self.behaviour(of: await live.engine, regions: regions.map(\.identifier), then: later)

            var damaged = good
            damaged[damaged.count / 2] ^= 0x01
            var otherVersion = good
            otherVersion[4] = 99
            var elsewhere = Engine(policy: .precise)
            try elsewhere.add(contentsOf: Self.regions(seed: 7))
            let cases: [(String, Data)] = [
                ("corrupt", damaged), ("format version 99", otherVersion),
                ("other regions", elsewhere.subjectSnapshot()), ("corrupt", Data("junk".utf8)),
            ]
            let position = try #require(try await store.snapshotPosition(tenant: "t"))
            for (reason, bytes) in cases {
                #expect(try await store.saveSnapshot(tenant: "t", position: position, data: bytes, now: Self.t0))
                let log = LogCapture()
                let rebuilt = Self.runtime(store, logger: log.logger)
                try await rebuilt.rebuild()
                #expect(
                    Self.behaviour(of: await rebuilt.engine, regions: regions.map(\.identifier), then: later)
                        == expected, "\(reason)")
                let warnings = log.messages.filter { $0.contains("snapshot not used") }
                #expect(warnings.count == 1, "\(reason): \(log.messages)")
                #expect(
                    warnings.first?.contains(reason) == true
                        || reason == "other regions" && warnings.first?.contains("other regions") == true,
                    "\(reason): \(warnings)")
            }
            try await store.close()
        }
    }

    @Test("a snapshot due by its fix count waits until snapshots take at most 5 % of the tenant's time")
    func snapshotsKeepTheirShare() {
        let schedule = SnapshotSchedule(everyFixes: 100, interval: .seconds(60))
        func due(fixes: Int = 100, seconds: Double = 0, cost: Duration?, since: Duration?) -> Bool {
            schedule.isDue(
                fixes: fixes, last: Self.t0, now: Self.t0.addingTimeInterval(seconds), lastCost: cost,
                sinceLastEnded: since)
        }
        #expect(due(cost: nil, since: nil), "the first snapshot is not held back")
        // The last one held the tenant 20 ms: the next may start 19 × 20 = 380 ms after it ended.
        #expect(!due(cost: .milliseconds(20), since: .milliseconds(379)))
        #expect(due(cost: .milliseconds(20), since: .milliseconds(380)))
        #expect(!due(fixes: 1_000_000, cost: .milliseconds(20), since: .milliseconds(100)), "however many fixes")
        // The interval rule is not held back: a snapshot at least every `interval`.
        #expect(due(fixes: 1, seconds: 60, cost: .seconds(10), since: .milliseconds(1)))
        var unbounded = schedule
        unbounded.maximumShare = 1
        #expect(
            unbounded.isDue(
                fixes: 100, last: Self.t0, now: Self.t0, lastCost: .seconds(10), sinceLastEnded: .zero))
    }

    @Test(
        "a tenant holds back its next fix-count snapshot by the share bound, measured from its last one",
        arguments: [(1e-9, false), (1.0, true)])
    func runtimeKeepsTheShare(maximumShare: Double, secondTaken: Bool) async throws {
        try await TestDatabase.with(.sqlite) { db in
            let store = try await db.open()
            var schedule = SnapshotSchedule(everyFixes: 50, interval: .seconds(1_000_000))
            schedule.maximumShare = maximumShare // 1e-9: the next one waits 10⁹ × the last one's cost
            let runtime = TenantRuntime(tenant: "t", store: store, policy: .precise, snapshotSchedule: schedule)
            try await runtime.rebuild()
            _ = try await runtime.upsert(Self.regions(), create: false, now: Self.t0)
            let batches = Self.batches(0..<30)
            try await Self.feed(runtime, Array(batches.prefix(10))) // 50 fixes: the first snapshot
            await runtime.waitForSnapshot()
            let first = try #require(try await store.startupJournal(tenant: "t", useSnapshot: true).snapshot)
            #expect(await runtime.lastSnapshotCost != nil)
            try await Self.feed(runtime, Array(batches[10..<20])) // 50 more: due by count
            await runtime.waitForSnapshot()
            let latest = try await store.startupJournal(tenant: "t", useSnapshot: true).snapshot
            #expect(((latest?.position ?? 0) > first.position) == secondTaken)
            #expect(await runtime.fixesSinceSnapshot == (secondTaken ? 0 : 50))
            try await store.close()
        }
    }

    @Test("snapshots follow the schedule: after everyFixes fixes, or after the interval once a fix came")
    func scheduleIsKept() async throws {
        let schedule = SnapshotSchedule(everyFixes: 100, interval: .seconds(60))
        #expect(!schedule.isDue(fixes: 0, last: Self.t0, now: Self.t0.addingTimeInterval(1_000)))
        #expect(!schedule.isDue(fixes: 99, last: Self.t0, now: Self.t0.addingTimeInterval(59)))
        #expect(schedule.isDue(fixes: 100, last: Self.t0, now: Self.t0))
        #expect(schedule.isDue(fixes: 1, last: Self.t0, now: Self.t0.addingTimeInterval(60)))
        #expect(!SnapshotSchedule(isEnabled: false).isDue(fixes: 1_000_000, last: Self.t0, now: .distantFuture))

        try await TestDatabase.with(.sqlite) { db in
            let store = try await db.open()
            let runtime = TenantRuntime(
                tenant: "t", store: store, policy: .precise,
                snapshotSchedule: SnapshotSchedule(everyFixes: 50, interval: .seconds(1_000_000)))
            try await runtime.rebuild()
            _ = try await runtime.upsert(Self.regions(), create: false, now: Self.t0)
            try await Self.feed(runtime, Array(Self.batches(0..<10).prefix(9))) // 45 fixes: none yet
            await runtime.waitForSnapshot()
            #expect(try await store.startupJournal(tenant: "t", useSnapshot: true).snapshot == nil)
            try await Self.feed(runtime, Array(Self.batches(10..<20).prefix(2))) // 55: one
            await runtime.waitForSnapshot()
            let snapshot = try #require(try await store.startupJournal(tenant: "t", useSnapshot: true).snapshot)
            #expect(await runtime.fixesSinceSnapshot == 0)
            var restored = Engine(policy: .precise)
            try restored.add(contentsOf: Self.regions())
            try restored.restoreSubjects(from: snapshot.data)
            #expect(restored.subjects.sorted() == ["dev-0", "dev-1", "dev-2", "dev-3"])
            try await store.close()
        }
    }

    @Test("PostgreSQL: an instance whose engine missed another instance's commits saves no snapshot")
    func staleInstanceSavesNoSnapshot() async throws {
        try await TestDatabase.with(.postgres) { db in
            let storeA = try await db.open()
            let storeB = try await db.open()
            let a = Self.runtime(storeA)
            let b = Self.runtime(storeB)
            try await a.rebuild()
            _ = try await a.upsert(Self.regions(), create: false, now: Self.t0)
            try await b.rebuild()
            let batches = Self.batches(0..<10)
            try await Self.feed(a, batches.filter { $0.device == "dev-0" })
            try await Self.feed(b, batches.filter { $0.device == "dev-1" })
            #expect(await a.takeSnapshot(now: Self.t0) == nil, "A has not seen dev-1's batches")
            try await a.rebuild()
            #expect(await a.takeSnapshot(now: Self.t0) != nil, "after catching up, A's snapshot covers everything")
            try await storeA.close()
            try await storeB.close()
        }
    }
}

/// Collects log messages (with their metadata) for assertions.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var messages: [String] { lock.withLock { lines } }
    var logger: Logger {
        Logger(label: "capture") { _ in Handler(capture: self) }
    }
    func append(_ line: String) { lock.withLock { lines.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(
                "\(event.message) \(merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
            )
        }
    }
}
