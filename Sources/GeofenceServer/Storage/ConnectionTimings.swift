import CoreMetrics

/// What the two lanes of one SQLite connection (``ConnectionThread``) cost each other, in
/// `/metrics`: with a single writer, every request that arrives while the server's own work
/// holds the connection waits for that work's step and its commit.
struct ConnectionTimings: Sendable {
    /// From a request's closure being submitted to its start
    /// (`geofence_sqlite_request_wait_seconds`).
    let requestWait: CoreMetrics.Timer
    /// How long each background closure held the connection, its commit included
    /// (`geofence_sqlite_background_hold_seconds`).
    let backgroundHold: CoreMetrics.Timer
    /// Request closures submitted while a background closure held the connection
    /// (`geofence_sqlite_requests_behind_background_total`).
    let requestsBehindBackground: CoreMetrics.Counter

    static let waitLabel = "geofence_sqlite_request_wait_seconds"
    static let holdLabel = "geofence_sqlite_background_hold_seconds"

    /// Buckets from 50 µs: the waits that matter are a fraction of a millisecond.
    static let buckets: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 100, 1_000].map {
        .microseconds(Int64($0 * 1_000))
    }

    init(factory: any MetricsFactory) {
        requestWait = CoreMetrics.Timer(label: Self.waitLabel, factory: factory)
        backgroundHold = CoreMetrics.Timer(label: Self.holdLabel, factory: factory)
        requestsBehindBackground = CoreMetrics.Counter(
            label: "geofence_sqlite_requests_behind_background_total", factory: factory)
    }
}
