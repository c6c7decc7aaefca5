import Logging
import ServiceLifecycle

/// Keeps this instance's engines in step with region changes made through other instances
/// sharing the store: every `interval` it asks ``ServerStore/changedTenants()`` and rebuilds
/// those tenants' engines from the journal. Polling rather than LISTEN/NOTIFY, so a missed
/// notification (a dropped connection) can never leave an engine stale for good; the delay is
/// at most `interval` plus one journal replay. With a store only one process uses it costs
/// nothing (the answer is always empty). Fix batches never wait for it: a write built on a
/// stale engine is refused by the store and redone (``StoreError/staleView(tenant:)``).
struct RegionSync: Service {
    let store: any ServerStore
    let hub: TenantHub
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do { try await syncOnce() } catch {
                logger.error("region sync failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// Rebuilds every tenant whose regions changed elsewhere; returns their ids.
    @discardableResult
    func syncOnce() async throws -> [String] {
        let changed = try await store.changedTenants()
        for t in changed {
            logger.info("regions changed on another instance; rebuilding", metadata: ["tenant": "\(t)"])
            try await hub.runtime(t).rebuild()
        }
        return changed
    }
}
