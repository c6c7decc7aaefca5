import Foundation

/// A stand-in for UIKit's background tasks, as strict as `UIApplication`'s documentation: for
/// tests of code that holds background time (ours and apps').
///
/// - A task begun with no time left is not granted (`nil`, UIKit's `.invalid`): "the app is
///   suspended" once `backgroundTimeRemaining` reaches 0
///   (https://developer.apple.com/documentation/uikit/uiapplication/backgroundtimeremaining).
/// - Time runs out only when the test says (``pass(_:)``); a task still open then was
///   overstayed: the system calls its expiration handler, which must end it, "failure to do so
///   results in the termination of the app"
///   (https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)).
///   The fake ends it and counts it in ``expiredTasks``: a holder that respects the window
///   leaves that count at 0.
/// - Ending a task twice, or one never begun, is counted in ``misusedEnds`` (UIKit requires
///   each identifier to be ended once).
public actor FakeBackgroundExecution: BackgroundExecution {
    /// Seconds left in the background.
    public private(set) var timeRemaining: TimeInterval
    /// Tasks begun and not ended, by identifier, with their names.
    public private(set) var openTasks: [Int: String] = [:]
    /// Tasks begun so far.
    public private(set) var begun = 0
    /// Tasks the system had to end because the time ran out while they were open.
    public private(set) var expiredTasks = 0
    /// `endTask` calls for an identifier not open.
    public private(set) var misusedEnds = 0

    /// The app has `timeRemaining` seconds in the background (a relaunch: about 10).
    public init(timeRemaining: TimeInterval = 10) {
        self.timeRemaining = timeRemaining
    }

    public func beginTask(named name: String) -> Int? {
        guard timeRemaining > 0 else { return nil }
        begun += 1
        openTasks[begun] = name
        return begun
    }

    public func endTask(_ id: Int) {
        if openTasks.removeValue(forKey: id) == nil { misusedEnds += 1 }
    }

    /// `seconds` of background time pass; at 0 every open task expires.
    public func pass(_ seconds: TimeInterval) {
        timeRemaining = max(0, timeRemaining - max(0, seconds))
        guard timeRemaining == 0 else { return }
        expiredTasks += openTasks.count
        openTasks = [:]
    }
}
