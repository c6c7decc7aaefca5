import Foundation
import Geofencing
import Testing

@testable import GeofenceServer

/// What a tenant's runtime records about a snapshot whose write is in flight while the tenant
/// goes on (``TenantRuntime+Snapshots``): the fixes it still has to cover, and the time its
/// journal mark claims for retention.
@Suite("Snapshots written while the tenant goes on: bookkeeping and journal marks")
struct SnapshotWriteTests {
    typealias Signal = RequestBudgetTests.Signal
    static let t0 = SnapshotTests.t0

    /// A store whose snapshot writes wait for `proceed` (announcing themselves on `writing`).
    static func heldWrites(_ base: any ServerStore) -> (FailingStore, writing: Signal, proceed: Signal) {
        let (writing, proceed) = (Signal(), Signal())
        let store = FailingStore(
            base, failing: [],
            beforeSnapshotWrite: {
                writing.fire()
                await proceed.wait()
            })
        return (store, writing, proceed)
    }

    @Test(
        "while a snapshot is written the tenant goes on: what it commits meanwhile is not in the snapshot, and a rebuild replays it",
        arguments: StoreKind.allCases)
    func ingestionGoesOnDuringTheWrite(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let (store, writing, proceed) = Self.heldWrites(try await db.open())
            let regions = SnapshotTests.regions()
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(regions, create: false, now: Self.t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<40))
            async let snapshot = live.takeSnapshot(now: Self.t0)
            await writing.wait()
            // The snapshot stands before its write; the tenant takes fixes and a region change.
            try await SnapshotTests.feed(live, SnapshotTests.batches(40..<70))
            _ = try await live.upsert(
                [.circle(identifier: "late", center: SnapshotTests.centre, radius: 400)], create: false, now: Self.t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(70..<90))
            proceed.fire()
            let position = try #require(await snapshot)

            let start = try await store.startupJournal(tenant: "t", useSnapshot: true)
            #expect(start.snapshot?.position == position)
            // 24 batches, the region change and 16 batches came after the position it covers.
            #expect(start.tail.count == 41)
            let ids = regions.map(\.identifier) + ["late"]
            let later = SnapshotTests.batches(90..<160)
            let expected = SnapshotTests.behaviour(of: await live.engine, regions: ids, then: later)
            #expect(expected.filter { $0.contains(" enter ") || $0.contains(" exit ") }.count > 5)
            let rebuilt = SnapshotTests.runtime(store)
            try await rebuilt.rebuild()
            #expect(await rebuilt.restoredFrom == position)
            #expect(SnapshotTests.behaviour(of: await rebuilt.engine, regions: ids, then: later) == expected)
            try await store.close()
        }
    }

    @Test(
        "a rebuild while a snapshot is written restarts the count: the fixes after it still count towards the next snapshot",
        arguments: StoreKind.allCases)
    func rebuildDuringTheWriteKeepsTheCount(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let (store, writing, proceed) = Self.heldWrites(try await db.open())
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<40)) // 160 fixes
            async let snapshot = live.takeSnapshot(now: Self.t0)
            await writing.wait()
            try await live.rebuild() // as after a failed commit: the count starts again at 0
            try await SnapshotTests.feed(live, SnapshotTests.batches(40..<50)) // 40 fixes after the position
            proceed.fire()
            #expect(await snapshot != nil)
            #expect(
                await live.fixesSinceSnapshot == 40, "the snapshot covers none of the fixes counted since the rebuild")
            try await store.close()
        }
    }

    @Test(
        "a snapshot superseded by one covering more still settles the fixes it covered",
        arguments: StoreKind.allCases)
    func supersededSnapshotSettlesItsFixes(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let base = try await db.open()
            let (store, writing, proceed) = Self.heldWrites(base)
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<40)) // 160 fixes
            async let snapshot = live.takeSnapshot(now: Self.t0)
            await writing.wait()
            try await SnapshotTests.feed(live, SnapshotTests.batches(40..<50)) // 40 fixes after the position
            // Meanwhile a snapshot covering all 200 fixes is stored (another instance's, say).
            let later = try #require(try await base.snapshotPosition(tenant: "t"))
            let bytes = await live.engine.subjectSnapshot()
            #expect(try await base.saveSnapshot(tenant: "t", position: later, data: bytes, now: Self.t0))
            proceed.fire()
            #expect(await snapshot == nil, "superseded: nothing written")
            #expect(try await base.startupJournal(tenant: "t", useSnapshot: true).snapshot?.position == later)
            // The 160 fixes up to its own position are covered (by the later snapshot); only the
            // 40 after it are not known to be.
            #expect(await live.fixesSinceSnapshot == 40)
            try await store.close()
        }
    }

    @Test(
        "a snapshot's journal mark is no earlier than the commits it covers, so retention never deletes a batch before its time",
        arguments: StoreKind.allCases)
    func markIsNoEarlierThanTheBatchesItCovers(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let (held, release) = (Signal(), Signal())
            let store = FailingStore(
                try await db.open(), failing: [],
                beforeCommit: { now in
                    guard now == Self.t0 else { return }
                    held.fire()
                    await release.wait()
                })
            let runtime = TenantRuntime(
                tenant: "t", store: store, policy: .precise,
                snapshotSchedule: SnapshotSchedule(everyFixes: 5, interval: .seconds(1_000_000)),
                logger: Harness.quietLogger())
            try await runtime.rebuild()
            _ = try await runtime.upsert(SnapshotTests.regions(), create: false, now: Self.t0)
            let batches = SnapshotTests.batches(0..<5)
            let late = Self.t0.addingTimeInterval(60)
            // dev-0's batch, committed at t0, makes a snapshot due; while its commit runs, dev-1's
            // batch (received a minute later) queues behind it and commits before the snapshot
            // reads its position.
            async let first = runtime.ingest(
                device: batches[0].device, fixes: batches[0].fixes, fieldPrefix: "fixes", now: Self.t0)
            await held.wait()
            async let second = runtime.ingest(
                device: batches[1].device, fixes: batches[1].fixes, fieldPrefix: "fixes", now: late)
            while await runtime.queue.isEmpty { await Task.yield() }
            release.fire()
            _ = try await (first, second)
            await runtime.waitForSnapshot()
            let start = try await store.startupJournal(tenant: "t", useSnapshot: true)
            #expect(start.snapshot != nil && start.tail.isEmpty, "the snapshot covers both batches")

            // A cut-off between the two commits: dev-1's batch is younger, and stays.
            let early = try await store.prune(
                tenant: "t", fixesBefore: Self.t0.addingTimeInterval(30), eventsBefore: nil, limit: 100)
            #expect(early.fixBatches == 0, "a batch stored at t0 + 60 s went at a cut-off of t0 + 30 s")
            let kept = try await store.journal(tenant: "t").compactMap { entry -> String? in
                if case .fixes(let fixes) = entry { return fixes.first?.subject }
                return nil
            }
            #expect(kept.contains(batches[1].device))
            // Once the cut-off passes the later commit, both go.
            let due = try await store.prune(tenant: "t", fixesBefore: late, eventsBefore: nil, limit: 100)
            #expect(due.fixBatches == 2)
            try await store.close()
        }
    }

    @Test(
        "retention while a snapshot is written deletes only what the stored one covers; the new one then rebuilds the live engine",
        arguments: StoreKind.allCases)
    func pruneDuringTheWrite(_ kind: StoreKind) async throws {
        try await TestDatabase.with(kind) { db in
            let base = try await db.open()
            let (store, writing, proceed) = Self.heldWrites(base)
            let regions = SnapshotTests.regions()
            let live = SnapshotTests.runtime(store)
            try await live.rebuild()
            _ = try await live.upsert(regions, create: false, now: Self.t0)
            try await SnapshotTests.feed(live, SnapshotTests.batches(0..<20)) // 16 batches
            let first = try #require(try await base.snapshotPosition(tenant: "t"))
            #expect(
                try await base.saveSnapshot(
                    tenant: "t", position: first, data: await live.engine.subjectSnapshot(), now: Self.t0))
            try await SnapshotTests.feed(live, SnapshotTests.batches(20..<40)) // 16 more
            async let snapshot = live.takeSnapshot(now: Self.t0)
            await writing.wait()
            try await SnapshotTests.feed(live, SnapshotTests.batches(40..<50)) // 8 after its position
            let during = try await base.prune(tenant: "t", fixesBefore: .distantFuture, eventsBefore: nil, limit: 1_000)
            #expect(during.fixBatches == 16, "only the batches the stored snapshot covers")
            proceed.fire()
            let position = try #require(await snapshot)
            let after = try await base.prune(tenant: "t", fixesBefore: .distantFuture, eventsBefore: nil, limit: 1_000)
            #expect(after.fixBatches == 16, "then those the new one covers")

            let ids = regions.map(\.identifier)
            let later = SnapshotTests.batches(50..<120)
            let expected = SnapshotTests.behaviour(of: await live.engine, regions: ids, then: later)
            let rebuilt = SnapshotTests.runtime(store)
            try await rebuilt.rebuild()
            #expect(await rebuilt.restoredFrom == position)
            #expect(SnapshotTests.behaviour(of: await rebuilt.engine, regions: ids, then: later) == expected)
            try await store.close()
        }
    }
}
