import CoreMetrics
import Metrics
import Prometheus

/// The server's counters, recorded through swift-metrics into a private Prometheus registry
/// (no global bootstrap, so several servers can live in one process) and served at `/metrics`.
package struct ServerMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    let fixes: CoreMetrics.Counter
    let batches: CoreMetrics.Counter
    /// Fix-batch transactions (group commits); `batches / commits` is the mean group size.
    let commits: CoreMetrics.Counter
    let events: CoreMetrics.Counter
    let rejected: CoreMetrics.Counter
    let delivered: CoreMetrics.Counter
    let deliveryFailures: CoreMetrics.Counter
    let deliveriesAbandoned: CoreMetrics.Counter
    /// Time of one group commit's store call (`geofence_fix_commit_seconds`).
    let commitTime: CoreMetrics.Timer
    /// Per fix batch, the time from joining the commit queue to its commit ending: the
    /// server's wait for durability (`geofence_fix_batch_commit_wait_seconds`).
    let batchWait: CoreMetrics.Timer
    /// Batches per group commit (`geofence_fix_commit_group_batches`).
    let groupSize: CoreMetrics.Recorder
    /// Tracking-app reports acknowledged and not used, by reason
    /// (`geofence_app_reports_set_aside_total{reason}`, ``SetAsideReason``).
    let setAside: [SetAsideReason: CoreMetrics.Counter]
    /// The SQLite connection's lanes (``ConnectionTimings``); unused on PostgreSQL.
    let connection: ConnectionTimings

    package init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Sub-millisecond resolution for the commit path (the default buckets start at 5 ms).
        let fine: [Duration] = [0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 25, 50, 100, 250, 1_000].map {
            .microseconds(Int64($0 * 1_000))
        }
        factory.durationHistogramBuckets = [
            "geofence_fix_commit_seconds": fine, "geofence_fix_batch_commit_wait_seconds": fine,
            ConnectionTimings.waitLabel: ConnectionTimings.buckets,
            ConnectionTimings.holdLabel: ConnectionTimings.buckets,
        ]
        factory.valueHistogramBuckets = ["geofence_fix_commit_group_batches": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]]
        self.registry = registry
        fixes = CoreMetrics.Counter(label: "geofence_fixes_ingested_total", factory: factory)
        batches = CoreMetrics.Counter(label: "geofence_fix_batches_total", factory: factory)
        commits = CoreMetrics.Counter(label: "geofence_fix_commits_total", factory: factory)
        events = CoreMetrics.Counter(label: "geofence_events_total", factory: factory)
        rejected = CoreMetrics.Counter(label: "geofence_requests_rejected_total", factory: factory)
        delivered = CoreMetrics.Counter(
            label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "delivered")], factory: factory)
        deliveryFailures = CoreMetrics.Counter(
            label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "failed_attempt")], factory: factory)
        deliveriesAbandoned = CoreMetrics.Counter(
            label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "abandoned")], factory: factory)
        commitTime = CoreMetrics.Timer(label: "geofence_fix_commit_seconds", factory: factory)
        batchWait = CoreMetrics.Timer(label: "geofence_fix_batch_commit_wait_seconds", factory: factory)
        groupSize = CoreMetrics.Recorder(label: "geofence_fix_commit_group_batches", aggregate: true, factory: factory)
        setAside = Dictionary(
            uniqueKeysWithValues: SetAsideReason.allCases.map { reason in
                (
                    reason,
                    CoreMetrics.Counter(
                        label: "geofence_app_reports_set_aside_total", dimensions: [("reason", reason.rawValue)],
                        factory: factory)
                )
            })
        connection = ConnectionTimings(factory: factory)
    }

    /// The Prometheus text exposition.
    package func exposition() -> String { registry.emitToString() }
}
