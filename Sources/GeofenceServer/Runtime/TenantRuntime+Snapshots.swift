import Foundation
import Geofencing
import Logging

/// Checkpoints: the engine's subjects saved in the store with the journal position they cover
/// (``ServerStore/saveSnapshot(tenant:position:data:now:)``), so that a rebuild replays only the
/// journal after it.
///
/// The tenant is held only while the engine and the journal agree: once every queued batch has
/// committed (``enterSettled()``), a copy of the engine is taken (copy-on-write: it costs nothing
/// until ingestion next changes the engine) and the journal position it covers is read
/// (``ServerStore/snapshotPosition(tenant:)``). The lock is then released; the copy is exported
/// off the runtime's actor and written in one transaction while the tenant's ingestion goes on.
/// Journal entries up to the position never change, so the snapshot stays true of them however
/// long the write takes, and a crash leaves either the old snapshot or the new one, each with
/// its own position — never a snapshot without its position.
extension TenantRuntime {
    /// Counts `fixes` committed at `now` and starts a snapshot when the schedule says so.
    func noteCommitted(fixes: Int, now: Date) {
        fixesSinceSnapshot += fixes
        lastCommitAt = max(lastCommitAt ?? now, now)
        if lastSnapshotAt == nil { lastSnapshotAt = now }
        let due = snapshotSchedule.isDue(
            fixes: fixesSinceSnapshot, last: lastSnapshotAt, now: now, lastCost: lastSnapshotCost,
            sinceLastEnded: lastSnapshotEnded.map { ContinuousClock.now - $0 })
        guard !snapshotting, due else { return }
        snapshotting = true
        snapshotTask = Task { await self.takeSnapshot(now: now) }
    }

    /// Returns once the scheduled snapshot under way, if any, has finished.
    func waitForSnapshot() async { await snapshotTask?.value }

    /// Saves a snapshot of the engine as it is once every queued batch has committed; returns
    /// the journal position it covers, or `nil` when none was saved (the store keeps none, the
    /// engine is being rebuilt, another instance wrote meanwhile or saved a later one, or the
    /// store failed — logged). Crash tests stop it after the export and after the commit
    /// (``Failpoint``).
    @discardableResult
    func takeSnapshot(now: Date) async -> Int64? {
        let began = ContinuousClock.now
        defer {
            // Saved, skipped or failed, the next try is after the interval, or by the fix count
            // once the share bound lets it (19 × this attempt's cost after it: a quick failure is
            // soon tried again).
            lastSnapshotAt = now
            snapshotting = false
            lastSnapshotEnded = ContinuousClock.now
            lastSnapshotCost = ContinuousClock.now - began
        }
        let copied: (engine: EngineShards, point: SnapshotPoint)?
        do { copied = try await settledEngine(now: now) } catch {
            logger.warning("engine snapshot failed", metadata: ["tenant": "\(tenant)", "error": "\(error)"])
            return nil
        }
        guard let (engine, settled) = consume copied else { return nil }
        let held = ContinuousClock.now - began
        // The copy goes with the export: freed there, off the actor, not kept through the write.
        let (data, cache) = await Self.export(consume engine, cache: snapshotCache)
        snapshotCache = cache
        await Failpoints.reach(.snapshotAfterExport, detail: "position \(settled.position)")
        do {
            let stored = try await store.saveSnapshot(
                tenant: tenant, position: settled.position, data: data, now: settled.at)
            await Failpoints.reach(.snapshotAfterCommit, detail: "position \(settled.position)")
            settle(covered: settled)
            logger.debug(
                "engine snapshot",
                metadata: [
                    "tenant": "\(tenant)", "position": "\(stored ? String(settled.position) : "superseded")",
                    "bytes": "\(data.count)", "heldMilliseconds": "\((held.seconds * 1_000).rounded())",
                    "milliseconds": "\(((ContinuousClock.now - began).seconds * 1_000).rounded())",
                ])
            return stored ? settled.position : nil
        } catch {
            logger.warning("engine snapshot failed", metadata: ["tenant": "\(tenant)", "error": "\(error)"])
            return nil
        }
    }

    /// What a snapshot covers, read under the tenant's lock with the copy of the engine.
    struct SnapshotPoint: Sendable {
        /// The journal position the copy holds exactly.
        var position: Int64
        /// ``fixesSinceSnapshot`` at that moment: what the snapshot covers of the count.
        var fixesSinceSnapshot: Int
        /// ``engineLoads`` at that moment: the count above is of this load's fixes.
        var engineLoads: Int
        /// The time the snapshot's journal mark claims (retention: every fix batch up to
        /// `position` was stored at or before it): the snapshot's `now`, or the latest commit's
        /// when that is later — a batch queued behind the one that made the snapshot due
        /// commits before the position is read.
        var at: Date
    }

    /// Takes the fixes a stored snapshot covers off ``fixesSinceSnapshot``: the ones counted
    /// when its position was read, also when a snapshot covering more was there first
    /// (superseded: the journal up to the position is covered all the same). Those committed
    /// during the write stay counted. After a load during the write the count restarted
    /// there, after the position: it stays as it is.
    private func settle(covered settled: SnapshotPoint) {
        guard engineLoads == settled.engineLoads else { return }
        fixesSinceSnapshot = max(0, fixesSinceSnapshot - settled.fixesSinceSnapshot)
    }

    /// Takes the lock once every queued batch has committed, copies the engine and reads the
    /// journal position it covers, and releases the lock; `nil` when the engine is being
    /// rebuilt or the store gives no position (it keeps no snapshots, or another instance
    /// wrote to the tenant since this engine saw it).
    private func settledEngine(now: Date) async throws -> (engine: EngineShards, point: SnapshotPoint)? {
        try await enterSettled()
        defer { release() }
        guard loaded, let position = try await store.snapshotPosition(tenant: tenant) else { return nil }
        let point = SnapshotPoint(
            position: position, fixesSinceSnapshot: fixesSinceSnapshot, engineLoads: engineLoads,
            at: max(now, lastCommitAt ?? now))
        return (shards, point)
    }

    /// Writes the snapshot bytes of `engine` (its shards' devices gathered in one engine, as
    /// one engine would hold them), off the runtime's actor so that the tenant's requests go on
    /// meanwhile; `cache` keeps the regions' part between snapshots. The copy ends here: once
    /// ingestion has changed the runtime's engine, the copy alone holds the old subject
    /// records, which are freed on this thread, not the actor's.
    @concurrent
    private static func export(_ engine: consuming EngineShards, cache: SnapshotCache) async -> (Data, SnapshotCache) {
        var cache = cache
        let data = engine.merged.subjectSnapshot(cache: &cache)
        return (data, cache)
    }

    /// The engine the store describes: its snapshot restored over the regions it was taken
    /// with, then the journal after it. A snapshot that cannot be trusted (damaged, another
    /// format version, other regions or another policy) is logged and ignored: the whole
    /// journal is replayed instead.
    func loadEngine() async throws -> Engine {
        let start = try await store.startupJournal(tenant: tenant, useSnapshot: snapshotSchedule.isEnabled)
        fixesSinceSnapshot = 0
        engineLoads += 1
        lastSnapshotAt = start.snapshot?.takenAt
        restoredFrom = nil
        guard let snapshot = start.snapshot else { return try Self.replay(start.tail, policy: policy) }
        var engine = try Self.replay(start.head, policy: policy)
        do {
            try engine.restoreSubjects(from: snapshot.data)
        } catch {
            logger.warning(
                "engine snapshot not used; replaying the whole journal",
                metadata: [
                    "tenant": "\(tenant)", "position": "\(snapshot.position)", "reason": "\(error)",
                ])
            lastSnapshotAt = nil
            return try Self.replay(
                try await store.startupJournal(tenant: tenant, useSnapshot: false).tail, policy: policy)
        }
        try Self.replay(start.tail, into: &engine)
        restoredFrom = snapshot.position
        return engine
    }
}
