import Foundation
import Geofencing
import Logging

/// Checkpoints: the engine's subjects saved in the store with the journal position they cover
/// (``ServerStore/saveSnapshot(tenant:data:now:)``), so that a rebuild replays only the journal
/// after it.
///
/// A snapshot is taken holding the tenant's lock once every queued batch has committed
/// (``enterSettled()``): the engine is then exactly the committed journal, and no batch can
/// join the queue until the snapshot's transaction has committed. The snapshot is one
/// transaction, so a crash leaves either the old snapshot or the new one, each with its own
/// position — never a snapshot without its position. Ingestion of the tenant waits for the
/// snapshot (export plus one transaction); other tenants do not.
extension TenantRuntime {
    /// Counts `fixes` committed at `now` and starts a snapshot when the schedule says so.
    func noteCommitted(fixes: Int, now: Date) {
        fixesSinceSnapshot += fixes
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

    /// Saves a snapshot of the engine (once every queued batch has committed); returns the
    /// journal position it covers, or `nil` when none was saved (the store keeps none, the
    /// engine is being rebuilt, another instance wrote meanwhile, or the store failed — logged).
    /// Crash tests stop it after the export and after the commit (``Failpoint``).
    @discardableResult
    func takeSnapshot(now: Date) async -> Int64? {
        let began = ContinuousClock.now
        defer {
            snapshotting = false
            lastSnapshotEnded = ContinuousClock.now
            lastSnapshotCost = ContinuousClock.now - began
        }
        do { try await enterSettled() } catch { return nil }
        defer { release() }
        guard loaded else { return nil }
        let started = ContinuousClock.now
        let data = engine.subjectSnapshot()
        await Failpoints.reach(.snapshotAfterExport)
        do {
            let position = try await store.saveSnapshot(tenant: tenant, data: data, now: now)
            await Failpoints.reach(.snapshotAfterCommit)
            lastSnapshotAt = now
            if position != nil { fixesSinceSnapshot = 0 }
            logger.debug(
                "engine snapshot",
                metadata: [
                    "tenant": "\(tenant)", "position": "\(position.map(String.init) ?? "skipped")",
                    "bytes": "\(data.count)",
                    "milliseconds": "\(((ContinuousClock.now - started).seconds * 1_000).rounded())",
                ])
            return position
        } catch {
            lastSnapshotAt = now // try again after the interval, not after every commit
            logger.warning("engine snapshot failed", metadata: ["tenant": "\(tenant)", "error": "\(error)"])
            return nil
        }
    }

    /// The engine the store describes: its snapshot restored over the regions it was taken
    /// with, then the journal after it. A snapshot that cannot be trusted (damaged, another
    /// format version, other regions or another policy) is logged and ignored: the whole
    /// journal is replayed instead.
    func loadEngine() async throws -> Engine {
        let start = try await store.startupJournal(tenant: tenant, useSnapshot: snapshotSchedule.isEnabled)
        fixesSinceSnapshot = 0
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
