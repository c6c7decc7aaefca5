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

    package init() {
        let registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        self.registry = registry
        fixes = CoreMetrics.Counter(label: "geofence_fixes_ingested_total", factory: factory)
        batches = CoreMetrics.Counter(label: "geofence_fix_batches_total", factory: factory)
        commits = CoreMetrics.Counter(label: "geofence_fix_commits_total", factory: factory)
        events = CoreMetrics.Counter(label: "geofence_events_total", factory: factory)
        rejected = CoreMetrics.Counter(label: "geofence_requests_rejected_total", factory: factory)
        delivered = CoreMetrics.Counter(label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "delivered")], factory: factory)
        deliveryFailures = CoreMetrics.Counter(label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "failed_attempt")], factory: factory)
        deliveriesAbandoned = CoreMetrics.Counter(label: "geofence_webhook_deliveries_total", dimensions: [("outcome", "abandoned")], factory: factory)
    }

    /// The Prometheus text exposition.
    package func exposition() -> String { registry.emitToString() }
}
