import Foundation

/// The app's background time, as UIKit grants it: `UIApplication`'s
/// `beginBackgroundTask(withName:expirationHandler:)`, `endBackgroundTask(_:)` and
/// `backgroundTimeRemaining`, behind a protocol so that tests (and macOS, which has no
/// background tasks) pass their own. Examples/ShopAlerts has the UIKit one.
///
/// A relaunched app has about 10 seconds; a background task asks for more, and the system
/// may end it sooner (the expiration handler). ``CoreLocationManagerBackend`` holds one while a
/// region event's position may still come, never longer than the time left allows.
public protocol BackgroundExecution: AnyObject, Sendable {
    /// Begins a background task; `nil` when the system grants none (`UIBackgroundTaskIdentifier.invalid`).
    /// The conformer ends the task itself when the system expires it.
    func beginTask(named name: String) async -> Int?
    /// Ends the task `id` (nothing if it has ended).
    func endTask(_ id: Int) async
    /// Seconds the app may still run in the background (`.infinity` in the foreground).
    var timeRemaining: TimeInterval { get async }
}

extension CoreLocationManagerBackend {
    /// How a region event's background task is bounded.
    public struct BackgroundWindow: Sendable, Hashable {
        /// Seconds kept back from the time left, for the app to post its notification and save.
        public var reserve: TimeInterval
        /// Most seconds the task is held waiting for a position after an event.
        public var longest: TimeInterval

        /// Defaults: 3 s kept back (posting a notification and writing the planner's file take
        /// well under a second), 25 s at most (iOS grants a background task about 30 s).
        public init(reserve: TimeInterval = 3, longest: TimeInterval = 25) {
            self.reserve = reserve
            self.longest = longest
        }

        /// How long a task may be held with `remaining` seconds left: never negative, never
        /// unbounded (0 when the settings or the system give no finite figure).
        func hold(remaining: TimeInterval) -> TimeInterval {
            let seconds = min(longest, remaining - reserve)
            guard seconds.isFinite, !remaining.isNaN else { return 0 }
            return max(0, seconds)
        }
    }
}
