import Foundation
import Geodesy
import Geofencing
import Logging
import Testing

@testable import GeofenceServer

/// A tenant's devices spread over engine shards run in parallel (docs/server.md, "Every core for
/// one tenant"): the same events as one engine, in each device's order, through region changes,
/// snapshots, rebuilds and several instances on PostgreSQL.
@Suite("Engine shards: one tenant's devices on several engines")
struct EngineShardTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let centre = SnapshotTests.centre
    static let devices = 24

    /// Device `d`'s fixes `steps`: a seeded random walk through the regions' 3 km square, one
    /// fix a second, accuracies 4–40 m, now and then a 60 m glitch.
    static func fixes(device d: Int, _ steps: Range<Int>, seed: UInt64 = 7) -> [LocationFix] {
        var rng = SplitMix64(seed: seed &+ UInt64(d) &* 0x9E37_79B9)
        var lat = centre.latitude + (rng.nextUnit() - 0.5) * 0.02
        var lon = centre.longitude + (rng.nextUnit() - 0.5) * 0.02
        var out: [LocationFix] = []
        for k in 0..<steps.upperBound {
            lat += (rng.nextUnit() - 0.5) * 0.0003
            lon += (rng.nextUnit() - 0.5) * 0.0003
            let glitch = rng.nextUnit() < 0.02 ? 0.0006 : 0
            let accuracy = 4 + rng.nextUnit() * 36
            guard steps.contains(k) else { continue }
            out.append(
                LocationFix(
                    subject: "dev-\(d)", coordinate: Coordinate(uncheckedLatitude: lat + glitch, longitude: lon),
                    horizontalAccuracy: accuracy, timestamp: t0.addingTimeInterval(Double(k) + Double(d) * 0.01)))
        }
        return out
    }

    /// Device `d`'s batches of phase `p` (fixes 600p ..< 600(p+1)): sizes that mix batches run
    /// off the actor (≥ ``TenantRuntime/offActorMinimum``) and small ones run in place.
    static func batches(device d: Int, phase p: Int) -> [[LocationFix]] {
        let all = fixes(device: d, (600 * p)..<(600 * (p + 1)))
        let sizes = [300, 7, 1, 292]
        var out: [[LocationFix]] = []
        var at = 0
        for size in sizes.shifted(by: d) {
            out.append(Array(all[at..<(at + size)]))
            at += size
        }
        return out
    }

    /// The region changes between phases: a new circle, one moved, one deleted.
    static let edits: [(upsert: [Region], delete: String)] = [
        (
            [
                .circle(identifier: "late", center: centre, radius: 400),
                .circle(identifier: "r3", center: centre, radius: 150),
            ], "r5"
        ),
        ([.circle(identifier: "r8", center: centre, radius: 900, dwell: 30)], "late"),
    ]

    static func describe(_ e: TransitionEvent) -> String {
        "\(e.subject) \(e.regionID) \(e.kind) \(e.time.timeIntervalSince1970) \(e.crossedAt.timeIntervalSince1970)"
    }

    /// Per device, its events from one engine fed every phase, with the region edits between.
    static func reference(phases: Int) throws -> [String: [String]] {
        var engine = Engine(policy: .precise)
        try engine.add(contentsOf: SnapshotTests.regions())
        var out: [String: [String]] = [:]
        for p in 0..<phases {
            if p > 0 {
                let edit = edits[(p - 1) % edits.count]
                try engine.add(contentsOf: edit.upsert)
                engine.remove(identifier: edit.delete)
            }
            for d in 0..<devices {
                for batch in batches(device: d, phase: p) {
                    for f in batch { out["dev-\(d)", default: []] += try engine.process(f).map(describe) }
                }
            }
        }
        return out
    }

    @Test(
        "shards give one engine's events, through region edits and a snapshot restored in between",
        arguments: [1, 2, 3, 5])
    func shardsMatchOneEngine(_ count: Int) throws {
        var shards = EngineShards(policy: .precise, count: count)
        try shards.add(contentsOf: SnapshotTests.regions())
        var events: [String: [String]] = [:]
        for p in 0..<3 {
            if p > 0 {
                let edit = Self.edits[(p - 1) % Self.edits.count]
                try shards.add(contentsOf: edit.upsert)
                let removed = shards.remove(identifier: edit.delete)
                #expect(removed)
                // Every shard holds the same regions, the lead's store itself.
                #expect(shards.regionCount == SnapshotTests.regions().count + (p == 1 ? 0 : -1))
            }
            if p == 2 {
                // Through one engine's snapshot and back into shards.
                let bytes = shards.merged.subjectSnapshot()
                var restored = shards.merged.withoutSubjects
                try restored.restoreSubjects(from: bytes)
                shards = EngineShards(restored, count: count)
            }
            // Devices interleaved batch by batch, as concurrent requests arrive.
            let perDevice = (0..<Self.devices).map { Self.batches(device: $0, phase: p) }
            for j in 0..<4 {
                for d in 0..<Self.devices {
                    for f in perDevice[d][j] {
                        events["dev-\(d)", default: []] += try shards.process(f).map(Self.describe)
                    }
                }
            }
        }
        let expected = try Self.reference(phases: 3)
        #expect(expected.values.map(\.count).reduce(0, +) > 100, "the walks must cross regions")
        #expect(events == expected)
        #expect(Set(shards.subjects) == Set((0..<Self.devices).map { "dev-\($0)" }))
        #expect(shards.subjects.count == Self.devices)
        if count > 1 {
            // The devices are spread: no shard holds them all.
            let used = Set((0..<Self.devices).map { shards.shard(of: "dev-\($0)") })
            #expect(used.count == count)
        }
    }

    static func runtime(_ store: any ServerStore, shards: Int) -> TenantRuntime {
        TenantRuntime(
            tenant: "t", store: store, policy: .precise,
            snapshotSchedule: SnapshotSchedule(everyFixes: 1_000_000, interval: .seconds(1_000_000), isEnabled: true),
            engineShards: shards, logger: Harness.quietLogger())
    }

    /// Feeds phase `p` to `pick(d, j)`'s runtime: every device at once, each its batches in
    /// order; returns each device's answered events in answer order, with their cursors.
    static func feed(
        phase p: Int, _ pick: @escaping @Sendable (Int, Int) -> TenantRuntime
    ) async throws -> [String: [(cursor: Int64, text: String)]] {
        try await withThrowingTaskGroup(of: (String, [(cursor: Int64, text: String)]).self) { group in
            for d in 0..<devices {
                group.addTask {
                    var mine: [(cursor: Int64, text: String)] = []
                    for (j, batch) in batches(device: d, phase: p).enumerated() {
                        var result: IngestResult
                        // A failed commit acknowledges nothing: the client sends the batch again.
                        repeat {
                            do {
                                result = try await pick(d, j).ingest(
                                    device: "dev-\(d)", fixes: batch, fieldPrefix: "fixes", now: t0)
                                break
                            } catch is FailingStore.InjectedFailure {
                                continue
                            }
                        } while true
                        guard case .committed(let events) = result else {
                            Issue.record("dev-\(d) batch \(j) of phase \(p) answered as a duplicate")
                            continue
                        }
                        mine += events.map { ($0.cursor, describe($0.event)) }
                    }
                    return ("dev-\(d)", mine)
                }
            }
            var out: [String: [(cursor: Int64, text: String)]] = [:]
            for try await (d, events) in group { out[d] = events }
            return out
        }
    }

    @Test(
        "a runtime on 4 shards, devices at once: one engine's events in each device's order, journal and rebuilds agree",
        arguments: StoreKind.allCases)
    func runtimeMatchesOneEngine(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let store = try await db.open()
            let live = Self.runtime(store, shards: 4)
            try await live.rebuild()
            _ = try await live.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            var answered: [String: [(cursor: Int64, text: String)]] = [:]
            for p in 0..<3 {
                if p > 0 {
                    let edit = Self.edits[(p - 1) % Self.edits.count]
                    _ = try await live.upsert(edit.upsert, create: false, now: Self.t0)
                    #expect(try await live.delete(id: edit.delete, now: Self.t0))
                }
                if p == 1 { #expect(await live.takeSnapshot(now: Self.t0) != nil) }
                if p == 2 { try await live.rebuild() } // from the snapshot and the journal after it
                for (d, events) in try await Self.feed(phase: p, { _, _ in live }) {
                    answered[d, default: []] += events
                }
            }
            let expected = try Self.reference(phases: 3)
            #expect(answered.mapValues { $0.map(\.text) } == expected)
            // Each device's events were stored in its order.
            for (d, events) in answered {
                #expect(events.map(\.cursor) == events.map(\.cursor).sorted(), "\(d)'s cursors out of order")
            }
            // The journal keeps each device's batches in order, and one engine replaying it is
            // the live one (a fresh runtime on one shard, without the snapshot).
            let journal = try await store.journal(tenant: "t")
            for d in 0..<Self.devices {
                let fed = journal.flatMap { entry -> [LocationFix] in
                    guard case .fixes(let fixes) = entry, fixes.first?.subject == "dev-\(d)" else { return [] }
                    return fixes
                }
                #expect(
                    fed.map(\.timestamp)
                        == (0..<3).flatMap { Self.batches(device: d, phase: $0).joined() }.map(\.timestamp))
            }
            let later = (0..<Self.devices).map { d in ("dev-\(d)", Self.fixes(device: d, 1800..<1900)) }
            let ids = SnapshotTests.regions().map(\.identifier).filter { $0 != "r5" }
            let behaviour = SnapshotTests.behaviour(of: await live.engine, regions: ids, then: later)
            let single = Self.runtime(store, shards: 1)
            try await single.rebuild()
            #expect(SnapshotTests.behaviour(of: await single.engine, regions: ids, then: later) == behaviour)
            try await store.close()
        }
    }

    @Test(
        "commits failing while batches run off the actor: nothing acknowledged is lost, retried batches give one engine's events",
        arguments: StoreKind.allCases)
    func failedCommitsWhileShardsRun(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let base = try await db.open()
            // Every device needs at least 4 successful commits (its 4 batches go one after
            // another); calls 1–8 hold only 3 successes, so however group commit gathers the
            // batches, every failure below is reached.
            let store = FailingStore(base, failing: [2, 3, 5, 7, 8])
            let live = Self.runtime(store, shards: 4)
            try await live.rebuild()
            _ = try await live.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            let answered = try await Self.feed(phase: 0, { _, _ in live })
            #expect(store.commitCalls > 8, "every injected failure was reached")
            #expect(answered.mapValues { $0.map(\.text) } == (try Self.reference(phases: 1)))
            // The store holds each device's batches once, in order: a failed group left nothing.
            let journal = try await base.journal(tenant: "t")
            for d in 0..<Self.devices {
                let fed = journal.flatMap { entry -> [LocationFix] in
                    guard case .fixes(let fixes) = entry, fixes.first?.subject == "dev-\(d)" else { return [] }
                    return fixes
                }
                #expect(fed.map(\.timestamp) == Self.batches(device: d, phase: 0).joined().map(\.timestamp))
            }
            try await base.close()
        }
    }

    @Test("two instances on one PostgreSQL, each on 3 shards, fed the same devices alternately: one engine's events")
    func twoInstancesOnShards() async throws {
        try await TestDatabase.with(.postgres) { db in
            let storeA = try await db.open()
            let storeB = try await db.open()
            let a = Self.runtime(storeA, shards: 3)
            let b = Self.runtime(storeB, shards: 3)
            try await a.rebuild()
            _ = try await a.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            var answered: [String: [String]] = [:]
            for p in 0..<2 {
                if p > 0 {
                    let edit = Self.edits[0]
                    _ = try await b.upsert(edit.upsert, create: false, now: Self.t0)
                    #expect(try await b.delete(id: edit.delete, now: Self.t0))
                }
                // Batch j of device d goes to instance (d + j) mod 2.
                let events = try await Self.feed(phase: p) { d, j in (d + j) % 2 == 0 ? a : b }
                for (d, list) in events { answered[d, default: []] += list.map(\.text) }
            }
            #expect(answered == (try Self.reference(phases: 2)))
            try await storeA.close()
            try await storeB.close()
        }
    }
}

extension Array {
    /// The elements rotated left by `k` (mod count).
    fileprivate func shifted(by k: Int) -> [Element] {
        guard !isEmpty else { return self }
        let s = k % count
        return Array(self[s...] + self[..<s])
    }
}
