import CoreLocationBridge
import Foundation
import UIKit

/// UIKit's background tasks for the bridge: it holds one from a region event until a position
/// comes or the time left (less a reserve) runs out, so a relaunched app can post its
/// notification and let the planner re-plan before iOS suspends it.
final class BackgroundTime: BackgroundExecution, @unchecked Sendable {
    private let application: UIApplication
    private let lock = NSLock()
    /// Tasks begun and not yet ended: each is ended exactly once, by `endTask` or on expiry.
    private var open: [Int: UIBackgroundTaskIdentifier] = [:]

    @MainActor init() { application = .shared }

    func beginTask(named name: String) async -> Int? {
        let box = TaskBox()
        let id = application.beginBackgroundTask { [weak self] in
            // Shortly before the time runs out: a task still open ends now, or iOS ends the app.
            if let self, let key = box.key { self.endTask(key) }
        }
        guard id != .invalid else { return nil }
        lock.withLock { open[id.rawValue] = id }
        box.key = id.rawValue
        return id.rawValue
    }

    func endTask(_ key: Int) {
        guard let id = lock.withLock({ open.removeValue(forKey: key) }) else { return }
        application.endBackgroundTask(id)
    }

    var timeRemaining: TimeInterval { application.backgroundTimeRemaining }
}

/// The key of a task, set once `beginBackgroundTask` has returned, read by its expiration handler.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int?
    var key: Int? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
