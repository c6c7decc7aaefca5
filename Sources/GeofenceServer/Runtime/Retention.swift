import Foundation
import Logging
import ServiceLifecycle

/// Deletes stored fix batches and events older than their retention
/// (``ServerConfiguration/fixRetention``, ``ServerConfiguration/eventRetention``) every
/// ``ServerConfiguration/retentionCheckInterval``, tenant by tenant, in transactions of at
/// most ``ServerConfiguration/retentionBatch`` rows of each kind
/// (``ServerStore/prune(tenant:fixesBefore:eventsBefore:limit:)``): a backlog is worked off
/// over several short transactions, never one long one that would hold ingestion back.
/// What a snapshot does not cover yet is never deleted.
struct Retention: Service {
    let store: any ServerStore
    let fixRetention: Duration?
    let eventRetention: Duration?
    let interval: Duration
    let batch: Int
    let clock: @Sendable () -> Date
    let logger: Logger

    /// Most transactions per tenant and round (then the next round goes on).
    static let maximumRoundsPerTenant = 100
    /// Most transactions on the delivery log per round.
    static let maximumNotificationRounds = 100

    func run() async throws {
        // A service that returns ends the whole service group, the HTTP server with it: with
        // nothing to prune, it waits for the shutdown instead.
        guard fixRetention != nil || eventRetention != nil else {
            try? await gracefulShutdown()
            return
        }
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            do { try await pruneOnce() } catch {
                logger.error("retention failed", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One round over every tenant; returns what was deleted.
    @discardableResult
    func pruneOnce() async throws -> PruneCount {
        let now = clock()
        let fixesBefore = fixRetention.map { now.addingTimeInterval(-$0.seconds) }
        let eventsBefore = eventRetention.map { now.addingTimeInterval(-$0.seconds) }
        var total = PruneCount()
        for tenant in try await store.tenants() {
            for _ in 0..<Self.maximumRoundsPerTenant {
                if Task.isShuttingDownGracefully || Task.isCancelled { return total }
                let n = try await store.prune(
                    tenant: tenant, fixesBefore: fixesBefore, eventsBefore: eventsBefore, limit: batch)
                total.fixBatches += n.fixBatches
                total.events += n.events
                guard n.fixBatches == batch || n.events == batch else { break }
            }
        }
        total.notifications = try await pruneNotifications(before: eventsBefore)
        if total != PruneCount() {
            logger.info(
                "retention",
                metadata: [
                    "fixBatches": "\(total.fixBatches)", "events": "\(total.events)",
                    "notifications": "\(total.notifications)",
                ])
        }
        return total
    }

    /// The delivery log goes with the events it reports on: entries older than the events'
    /// retention and no longer pending.
    private func pruneNotifications(before: Date?) async throws -> Int {
        guard let before, let notifications = store as? any NotificationStore else { return 0 }
        var pruned = 0
        for _ in 0..<Self.maximumNotificationRounds {
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            let n = try await notifications.pruneNotifications(before: before, limit: batch)
            pruned += n
            guard n == batch else { break }
        }
        return pruned
    }
}
