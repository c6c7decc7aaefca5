import Foundation
import Geofencing

/// A first-come, first-served lock on one engine shard: held by a fix batch of one of the
/// shard's devices from its checks until it joins the commit queue, so the shard's batches
/// run, and are journalled, one after another in arrival order.
struct ShardLock {
    var held = false
    var waiters: [CheckedContinuation<Void, Never>] = []
}

/// Parallel ingestion: the tenant's devices are spread over ``EngineShards``, and a large batch
/// runs on its shard's engine taken out of the actor (``runOffActor(_:of:on:tenant:)``), so
/// batches of devices in different shards run on different cores at once.
///
/// Locks, always taken in this order: a batch takes its shard's lock, then the tenant's lock
/// just long enough to check the batch and take the engine out; it runs, comes back, joins the
/// commit queue and puts the engine back in one actor step, then frees the shard. Everything
/// else that touches the engine (region changes, reads, snapshots, rebuilds) takes the tenant's
/// lock and then waits for every engine taken out to come back (``shardsHome()``) — an engine
/// out needs no lock to come back, so this cannot deadlock, and once the tenant's lock is held
/// no engine can be taken out. Hence:
/// - **per-device order**: a device's batches run on one shard, one at a time, in the order
///   they took the shard's lock, and join the commit queue in that order;
/// - **journal order = engine order** for each device, and for region changes, which wait for
///   every batch run before them to be queued (and, as before, committed);
/// - devices in different shards may reach the journal in another order than they ran: they
///   never affect each other in an engine, so replaying the journal gives the same engine.
extension TenantRuntime {
    /// Below this many fixes a batch runs on the actor, in place: a hop to another thread and
    /// back costs about as much as evaluating a hundred fixes.
    static let offActorMinimum = 256

    func acquireShard(_ k: Int) async {
        if !shardLocks[k].held {
            shardLocks[k].held = true
            return
        }
        await withCheckedContinuation { shardLocks[k].waiters.append($0) }
    }

    func releaseShard(_ k: Int) {
        if shardLocks[k].waiters.isEmpty {
            shardLocks[k].held = false
        } else {
            shardLocks[k].waiters.removeFirst().resume()
        }
    }

    /// Returns once no shard's engine is taken out.
    func shardsHome() async {
        while enginesOut > 0 { await withCheckedContinuation { homeWaiters.append($0) } }
    }

    /// Takes the shard of `device` out of ``shards`` to run a batch off the actor (its lock
    /// and the tenant's held).
    func takeShard(of device: String) -> Engine {
        enginesOut += 1
        return shards.take(shards.shard(of: device))
    }

    /// Puts a shard taken out back; the engine is unused until ``shardCameHome()``.
    func putBackShard(_ engine: consuming Engine, of device: String) {
        shards.putBack(engine, shards.shard(of: device))
    }

    /// Counts a shard back in, in the actor step that queues its batch, and wakes whoever
    /// waits for every shard.
    func shardCameHome() {
        enginesOut -= 1
        guard enginesOut == 0 else { return }
        let waiting = homeWaiters
        homeWaiters.removeAll()
        for w in waiting { w.resume() }
    }

    /// Runs `device`'s `fixes` through `engine` on the concurrent pool, off the tenant's actor
    /// (so other shards' batches run meanwhile), and hands the engine back with the batch to
    /// commit (its journal text written here too, not in the commit that runs one at a time).
    @concurrent
    static func runOffActor(
        _ fixes: [LocationFix], of device: String, on engine: consuming Engine, tenant: String
    ) async -> (Engine, Result<FixBatch, GeofencingError>) {
        var engine = engine
        let outcome = run(fixes, on: &engine, tenant: tenant).map {
            FixBatch(device: device, fixes: fixes, events: $0)
        }
        return (engine, outcome)
    }
}
