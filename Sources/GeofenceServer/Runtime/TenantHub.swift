import Foundation
import Geofencing
import Logging

/// Every tenant's ``TenantRuntime``, created on first use (its engine replayed from the
/// store then) and all loaded eagerly by ``loadAll()`` at start-up.
actor TenantHub {
    let store: any ServerStore
    let policy: HysteresisPolicy
    let metrics: ServerMetrics
    let snapshotSchedule: SnapshotSchedule
    let engineShards: Int
    let logger: Logger
    private var runtimes: [String: TenantRuntime] = [:]

    init(
        store: any ServerStore, policy: HysteresisPolicy, metrics: ServerMetrics = ServerMetrics(),
        snapshotSchedule: SnapshotSchedule = SnapshotSchedule(), engineShards: Int = EngineShards.defaultCount,
        logger: Logger = Logger(label: "geofence.tenant")
    ) {
        self.store = store
        self.policy = policy
        self.metrics = metrics
        self.snapshotSchedule = snapshotSchedule
        self.engineShards = engineShards
        self.logger = logger
    }

    func runtime(_ tenant: String) -> TenantRuntime {
        if let r = runtimes[tenant] { return r }
        let r = TenantRuntime(
            tenant: tenant, store: store, policy: policy, metrics: metrics,
            snapshotSchedule: snapshotSchedule, engineShards: engineShards, logger: logger)
        runtimes[tenant] = r
        return r
    }

    /// Rebuilds every stored tenant's engine; returns how many tenants were loaded and how
    /// many of them from a snapshot.
    @discardableResult
    func loadAll() async throws -> (tenants: Int, fromSnapshots: Int) {
        let tenants = try await store.tenants()
        var fromSnapshots = 0
        for t in tenants {
            let r = runtime(t)
            try await r.rebuild()
            if await r.restoredFrom != nil { fromSnapshots += 1 }
        }
        return (tenants.count, fromSnapshots)
    }
}
