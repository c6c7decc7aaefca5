import CoreMetrics

/// What the two lanes of one SQLite connection (``ConnectionThread``) cost each other, in
/// `/metrics`: with a single writer, a request that arrives while the server's own work holds
/// the connection waits for that work's step and its commit.
struct ConnectionTimings: Sendable {
    /// From a request's closure being submitted to its start, for the requests that arrived
    /// while a background closure held the connection
    /// (`geofence_sqlite_request_wait_seconds{arrived="during_background"}`).
    let waitBehindBackground: CoreMetrics.Timer
    /// The same for every other request: the connection was free, or held by another request
    /// (`geofence_sqlite_request_wait_seconds{arrived="otherwise"}`).
    let waitOtherwise: CoreMetrics.Timer
    /// How long each background closure held the connection, its commit included
    /// (`geofence_sqlite_background_hold_seconds`).
    let backgroundHold: CoreMetrics.Timer

    static let waitLabel = "geofence_sqlite_request_wait_seconds"
    static let holdLabel = "geofence_sqlite_background_hold_seconds"

    /// Buckets from 50 µs: the waits that matter are a fraction of a millisecond.
    static let buckets: [Duration] = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 100, 1_000].map {
        .microseconds(Int64($0 * 1_000))
    }

    init(factory: any MetricsFactory) {
        waitBehindBackground = CoreMetrics.Timer(
            label: Self.waitLabel, dimensions: [("arrived", "during_background")], factory: factory)
        waitOtherwise = CoreMetrics.Timer(
            label: Self.waitLabel, dimensions: [("arrived", "otherwise")], factory: factory)
        backgroundHold = CoreMetrics.Timer(label: Self.holdLabel, factory: factory)
    }

    /// Records a request's wait for the connection.
    func recordWait(nanoseconds: UInt64, arrivedDuringBackground: Bool) {
        (arrivedDuringBackground ? waitBehindBackground : waitOtherwise).recordNanoseconds(Int64(nanoseconds))
    }
}
