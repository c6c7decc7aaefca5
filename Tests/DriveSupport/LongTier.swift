import Foundation
import Testing

/// The long tier: whole-length drives, fuzzing at full size and the other scenarios that take
/// minutes. They run when `GEOFENCE_LONG_TESTS=1` is set (README, "Tests"); the default
/// `swift test` runs the shorter drives that prove the same rules.
public enum LongTier {
    /// Whether this run includes the long tier.
    public static var isEnabled: Bool {
        ProcessInfo.processInfo.environment["GEOFENCE_LONG_TESTS"] == "1"
    }
}

extension Trait where Self == ConditionTrait {
    /// The test belongs to the long tier: it runs only with `GEOFENCE_LONG_TESTS=1`.
    public static var longTier: Self {
        .enabled(if: LongTier.isEnabled, "long tier: set GEOFENCE_LONG_TESTS=1")
    }
}

/// Measurements that compare latencies in one process (`GEOFENCE_MEASURE=1`,
/// `scripts/pool-sharing.sh`). They assert a ratio of two timings, which holds on a machine the
/// run has to itself and is a coin flip while other work shares the cores, so neither tier runs
/// them: speed is checked by measurements run on purpose, not by the test suites.
public enum Measurement {
    /// Whether this run measures.
    public static var isEnabled: Bool {
        ProcessInfo.processInfo.environment["GEOFENCE_MEASURE"] == "1"
    }
}

extension Trait where Self == ConditionTrait {
    /// The test is a measurement: it runs only with `GEOFENCE_MEASURE=1`.
    public static var measurement: Self {
        .enabled(if: Measurement.isEnabled, "a measurement: set GEOFENCE_MEASURE=1 (scripts/pool-sharing.sh)")
    }
}
