import Foundation
import Geofencing

/// A fix batch that has run through the engine and waits for its commit; `batch` is `nil` for
/// a retry of a batch already queued or committed (it only waits for that commit).
struct QueuedBatch {
    var batch: FixBatch?
    var now: Date
    var continuation: CheckedContinuation<[StoredEvent]?, any Error>
    /// When it joined the queue (for the commit-wait metric only).
    var queuedAt: ContinuousClock.Instant = .now
}

/// The engine was marked invalid between taking the lock and using it (internal; retried).
private struct EngineInvalidated: Error {}

/// Group commit for stores that commit several batches atomically
/// (``ServerStore/commitsBatchesAtomically``: SQLite and PostgreSQL).
///
/// A request holds the tenant's lock only while its batch is checked and run through the
/// engine (no I/O), then appends the batch to `queue` and waits. One commit runs at a time: it
/// takes every batch queued (at most ``maximumGroup``) and writes them, in engine order, in
/// one transaction (``ServerStore/commitFixBatches(tenant:_:now:)``); batches that arrive
/// meanwhile form the next group. So under load one transaction carries many requests, and a
/// request waits for at most the commit in progress plus its own.
///
/// Guarantees kept:
/// - **acknowledged means durable**: a request is answered after the transaction holding its
///   batch committed; a retry of a queued batch (``IngestResult/duplicate``) waits for it too;
/// - **journal order = engine order**: the queue is appended under the lock in the same actor
///   step as the engine update, groups commit in queue order, and region changes and device
///   state reads first wait for the queue to empty (``enterSettled()``);
/// - **memory never ahead of the store for long**: when a commit fails, its group and every
///   batch queued behind it (computed on top of it) fail, the engine is marked invalid and is
///   rebuilt from the store by the next request before it touches the engine;
/// - **several instances** (PostgreSQL): a group's transaction checks every device's version and
///   the tenant's region version against this process's view; when another instance moved one
///   on, nothing is written, the group and the batches behind it fail with
///   ``StoreError/staleDevice(tenant:device:)`` / ``StoreError/staleView(tenant:)``, and each of
///   their requests rebuilds the engine and runs its batch again (16 times at most). A device
///   found moved elsewhere is remembered (`contended`): its later batches first fetch what the
///   other instances committed (``ServerStore/newerBatches(tenant:device:)``, one round trip),
///   so a device fed to several instances costs a query per batch, not a rebuild; a device only
///   this instance writes (device-affine routing) costs no query beyond its group's commit.
extension TenantRuntime {
    /// Most batches one transaction carries.
    static let maximumGroup = 512

    func ingestGrouped(
        device: String, fixes: [LocationFix], fieldPrefix: String, now: Date
    ) async throws -> IngestResult {
        let k = shards.shard(of: device)
        var stale = 0
        while true {
            await acquireShard(k)
            do {
                let events = try await ingestOnShard(
                    k, device: device, fixes: fixes, fieldPrefix: fieldPrefix, now: now)
                return events.map { .committed($0) } ?? .duplicate
            } catch is EngineInvalidated {
                continue // a commit failed while the batch ran: rebuild, then run again
            } catch let error as StoreError where stale < 16 {
                // Another instance got there first: nothing of the group was written. The
                // engine is rebuilt by the next enter(); run the batch again (16 times at most).
                switch error {
                case .staleView: stale += 1
                case .staleDevice(_, let moved):
                    stale += 1
                    contended.insert(moved)
                default: throw error
                }
            }
        }
    }

    /// Checks and runs one batch on shard `k` (whose lock the caller holds; it is released
    /// once the batch is queued or has failed), queues it and waits for its commit. A large
    /// batch runs on the shard taken out of the actor (``TenantRuntime+Shards``); a small
    /// one, or a retry, is checked, run and queued in one actor step, as with one engine.
    private func ingestOnShard(
        _ k: Int, device: String, fixes: [LocationFix], fieldPrefix: String, now: Date
    ) async throws -> [StoredEvent]? {
        let duplicate: Bool
        do {
            try await enterForBatch(device: device)
            do { duplicate = try check(device: device, fixes: fixes, fieldPrefix: fieldPrefix) } catch {
                release()
                throw error
            }
        } catch {
            releaseShard(k)
            throw error
        }
        if duplicate || shardCount == 1 || fixes.count < Self.offActorMinimum {
            // Everything from the check to the append happens in one actor step: no other
            // request, and no commit outcome, comes between the engine update and the queue.
            return try await withCheckedThrowingContinuation { c in
                defer {
                    release()
                    releaseShard(k)
                }
                guard loaded else { return c.resume(throwing: EngineInvalidated()) }
                do {
                    let batch =
                        duplicate
                        ? nil
                        : FixBatch(
                            device: device, fixes: fixes,
                            events: try run(device: device, fixes: fixes, fieldPrefix: fieldPrefix))
                    enqueue(batch, now: now, continuation: c)
                } catch {
                    c.resume(throwing: error)
                }
            }
        }
        let generation = engineGeneration
        let engine = takeShard(of: device)
        release()
        let (back, outcome) = await Self.runOffActor(fixes, of: device, on: consume engine, tenant: tenant)
        putBackShard(back, of: device)
        noteInside(device: device)
        // Counting the shard back in and queueing its batch happen in one actor step, so
        // nothing that waits for every shard (a region change, a rebuild) sees the engine
        // ahead of the queue.
        return try await withCheckedThrowingContinuation { c in
            defer {
                shardCameHome()
                releaseShard(k)
            }
            // A commit failed (or the engine was rebuilt) while the batch ran: what it ran on
            // may be ahead of the store; the next enter() rebuilds it and the batch runs again.
            guard generation == engineGeneration else { return c.resume(throwing: EngineInvalidated()) }
            switch outcome {
            case .success(let batch):
                enqueue(batch, now: now, continuation: c)
            case .failure(let error):
                invalidate() // the shard may be half-updated
                c.resume(throwing: Problem.badRequest(field: fieldPrefix, detail: "\(error)"))
            }
        }
    }

    /// Takes the tenant's lock for a batch: loads the engine if needed and, with a shared store,
    /// for a device another instance has written to (seen as a stale commit before), first
    /// applies what the others committed — unless a batch of ours for it is still in flight;
    /// then the view cannot be told apart from our own commit, and that commit's version check
    /// catches any change. Other devices skip this round trip: the commit's version check is
    /// what guarantees correctness. Unlike ``enter()``, it does not wait for other shards.
    private func enterForBatch(device: String) async throws {
        await acquire()
        do {
            try await loadIfInvalid()
            if store.isShared, contended.contains(device), inFlight[device, default: 0] == 0 {
                try await catchUp(device: device)
            }
        } catch {
            release()
            throw error
        }
    }

    /// Appends a batch run through the engine (`nil`: a retry, which only waits) to the commit
    /// queue.
    private func enqueue(
        _ batch: FixBatch?, now: Date, continuation: CheckedContinuation<[StoredEvent]?, any Error>
    ) {
        if let batch { inFlight[batch.device, default: 0] += 1 }
        queue.append(QueuedBatch(batch: batch, now: now, continuation: continuation))
        startCommitting()
    }

    private func startCommitting() {
        guard !committing else { return }
        committing = true
        Task { await self.commitQueued() }
    }

    /// Commits queued groups until the queue is empty, then wakes ``settle()``'s waiters.
    private func commitQueued() async {
        while !queue.isEmpty {
            let count = min(queue.count, Self.maximumGroup)
            let group = Array(queue.prefix(count))
            queue.removeFirst(count)
            let batches = group.compactMap(\.batch)
            do {
                let started = ContinuousClock.now
                let results =
                    batches.isEmpty
                    ? [] : try await store.commitFixBatches(tenant: tenant, batches, now: group[group.count - 1].now)
                let ended = ContinuousClock.now
                if !batches.isEmpty {
                    metrics.commits.increment()
                    metrics.commitTime.recordNanoseconds(Self.nanoseconds(ended - started))
                    metrics.groupSize.record(batches.count)
                }
                for q in group { metrics.batchWait.recordNanoseconds(Self.nanoseconds(ended - q.queuedAt)) }
                landed(group)
                if !batches.isEmpty {
                    noteCommitted(fixes: batches.reduce(0) { $0 + $1.fixes.count }, now: group[group.count - 1].now)
                }
                var next = results.makeIterator()
                for q in group { q.continuation.resume(returning: q.batch == nil ? nil : (next.next() ?? [])) }
            } catch {
                // The engine ran ahead of the store: fail this group and everything computed on
                // top of it, and have the next request rebuild the engine.
                let failed = group + queue
                queue.removeAll()
                invalidate()
                landed(failed)
                for q in failed { q.continuation.resume(throwing: error) }
            }
        }
        committing = false
        let waiting = settleWaiters
        settleWaiters.removeAll()
        for w in waiting { w.resume() }
    }

    private static func nanoseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1_000_000_000 + d.components.attoseconds / 1_000_000_000
    }

    /// Counts `entries` out of ``inFlight``.
    private func landed(_ entries: [QueuedBatch]) {
        for q in entries {
            guard let device = q.batch?.device else { continue }
            let left = inFlight[device, default: 1] - 1
            inFlight[device] = left > 0 ? left : nil
        }
    }

    /// Returns once no batch is queued or being committed.
    func settle() async {
        while committing || !queue.isEmpty {
            await withCheckedContinuation { settleWaiters.append($0) }
        }
    }
}
