// UIKit's background tasks, as Apple's SDK declares them (see UIApplication.swift for the rules
// of this stub): what a relaunched app uses to finish a region event's work before it is
// suspended.

private func stub() -> Never { fatalError("UIKit stub: type-checking only") }

/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier — iOS 4.0+, no tvOS
/// (`struct UIBackgroundTaskIdentifier`, a typed Int)
@available(iOS 4.0, *)
@available(tvOS, unavailable)
@available(macOS, unavailable)
public struct UIBackgroundTaskIdentifier: Hashable, RawRepresentable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid — iOS 4.0+
    /// (`static let invalid: UIBackgroundTaskIdentifier`; computed here only because a stub
    /// constant cannot trap)
    public static var invalid: UIBackgroundTaskIdentifier { stub() }
}

@available(iOS 4.0, *)
@available(tvOS, unavailable)
@available(macOS, unavailable)
extension UIApplication {
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(expirationhandler:)
    /// — iOS 4.0+, no tvOS
    nonisolated public func beginBackgroundTask(
        expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:) — iOS 4.0+,
    /// no tvOS; "can be safely called on a non-main thread"
    nonisolated public func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/backgroundtimeremaining — iOS 4.0+,
    /// no tvOS; `DBL_MAX` in the foreground
    nonisolated public var backgroundTimeRemaining: TimeInterval { stub() }
}
