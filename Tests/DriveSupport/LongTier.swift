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
