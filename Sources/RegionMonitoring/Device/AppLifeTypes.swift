import Foundation

/// Whether the simulated device is running normally (Core Location monitors regions only
/// in `.on`; see docs/monitoring.md, "Reboot and first unlock").
public enum PowerState: String, Sendable, Hashable, Codable {
    /// Booted and unlocked at least once since boot: monitoring runs.
    case on
    /// Rebooted and not yet unlocked: no monitoring, nothing delivered.
    case lockedAfterBoot
}

/// Why the app was launched (UIKit's `UIApplication.LaunchOptionsKey.location` when the
/// system launched it for a location event).
public enum LaunchReason: String, Sendable, Hashable, Codable {
    /// The user opened the app: do the full cold start.
    case user
    /// The system launched the app in the background for a region event: handle the event
    /// (open the ``Monitor`` by name) and skip the cold-start work.
    case location
}

/// One launch of the app, as the device performed it.
public struct LaunchRecord: Sendable, Hashable, Codable {
    public var reason: LaunchReason
    /// Track time of the launch (for `.location`, the time of the event that caused it).
    public var date: Date
    public init(reason: LaunchReason, date: Date) {
        self.reason = reason
        self.date = date
    }
}

/// What the device did that costs energy, counted for the power model (issue #9 item 4).
public struct DeviceActivity: Sendable, Hashable, Codable {
    /// Fixes the device took and evaluated (ignored ones — locked, asleep, no location — excluded).
    public var fixes = 0
    /// Times the system woke a suspended app for a region event.
    public var wakeUps = 0
    /// Times the system launched a terminated app for a region event.
    public var relaunches = 0
    public init() {}
}
