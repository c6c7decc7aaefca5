// A stub of the UIKit declarations the example app and docs/ios.md use, declaration by declaration
// as Apple's SDK declares them (name, signature, isolation, Sendable, `@available` per platform),
// so that those files are type-checked and their availability checked on Linux. The module is
// named UIKit. Nothing here runs: every body traps. Add a declaration only with its documentation
// page, and copy it exactly. UIKit exists on iOS, iPadOS, Mac Catalyst, tvOS and visionOS, not
// macOS: the whole module is iOS-only for the package's platforms.
// Apple's UIKit re-exports Foundation (its headers import <Foundation/Foundation.h>).
@_exported import Foundation

private func stub() -> Never { fatalError("UIKit stub: type-checking only") }

/// https://developer.apple.com/documentation/uikit/uiresponder — iOS 2.0+
@available(iOS 2.0, *)
@available(macOS, unavailable)
@MainActor
open class UIResponder: NSObject {}

/// https://developer.apple.com/documentation/uikit/uiapplication — iOS 2.0+ (`@MainActor class UIApplication`)
@available(iOS 2.0, *)
@available(macOS, unavailable)
@MainActor
open class UIApplication: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared — iOS 2.0+, not in app
    /// extensions (`@available(iOSApplicationExtension, unavailable)`)
    @available(iOSApplicationExtension, unavailable)
    open class var shared: UIApplication { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/applicationstate — iOS 4.0+
    @available(iOS 4.0, *)
    open var applicationState: UIApplication.State { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/backgroundrefreshstatus
    /// — iOS 7.0+ tvOS 11.0+
    @available(iOS 7.0, tvOS 11.0, *)
    open var backgroundRefreshStatus: UIBackgroundRefreshStatus { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/backgroundrefreshstatusdidchangenotification
    /// — iOS 7.0+ tvOS 11.0+ (`nonisolated class let backgroundRefreshStatusDidChangeNotification:
    /// NSNotification.Name`; a computed property here only because a stub constant cannot trap)
    @available(iOS 7.0, tvOS 11.0, *)
    nonisolated public static var backgroundRefreshStatusDidChangeNotification: NSNotification.Name { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/opensettingsurlstring — iOS 8.0+,
    /// no tvOS (`nonisolated class let openSettingsURLString: String`)
    @available(iOS 8.0, *)
    @available(tvOS, unavailable)
    nonisolated public static var openSettingsURLString: String { stub() }

    /// https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
    /// — iOS 10.0+
    @available(iOS 10.0, *)
    open func open(
        _ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) { stub() }

    /// The `async` import of the same method (https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:),
    /// whose page shows `await UIApplication.shared.open(url)`) — iOS 10.0+
    @available(iOS 10.0, *)
    open func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:]) async -> Bool {
        stub()
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/state — iOS 4.0+
    @available(iOS 4.0, *)
    public enum State: Int, @unchecked Sendable {
        /// https://developer.apple.com/documentation/uikit/uiapplication/state/active
        case active = 0
        /// https://developer.apple.com/documentation/uikit/uiapplication/state/inactive
        case inactive = 1
        /// https://developer.apple.com/documentation/uikit/uiapplication/state/background
        case background = 2
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/launchoptionskey
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// https://developer.apple.com/documentation/uikit/uiapplication/launchoptionskey/location
        /// — iOS 4.0–26.0 deprecated (`static let location: UIApplication.LaunchOptionsKey`); the
        /// header's message: "Adopt CLLocationUpdate or CLMonitor, or use CLLocationManagerDelegate
        /// from CoreLocation to handle expected location events after scene connection."
        @available(
            iOS, introduced: 4.0, deprecated: 26.0,
            message:
                "Adopt CLLocationUpdate or CLMonitor, or use CLLocationManagerDelegate from CoreLocation to handle expected location events after scene connection."
        )
        public static var location: UIApplication.LaunchOptionsKey { stub() }
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey — iOS 10.0+
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
    }
}

/// https://developer.apple.com/documentation/uikit/uibackgroundrefreshstatus — iOS 7.0+ tvOS 11.0+
/// (`enum UIBackgroundRefreshStatus`, an NS_ENUM: not frozen, a switch needs `@unknown default`)
@available(iOS 7.0, tvOS 11.0, *)
@available(macOS, unavailable)
public enum UIBackgroundRefreshStatus: Int, @unchecked Sendable {
    /// https://developer.apple.com/documentation/uikit/uibackgroundrefreshstatus/restricted
    case restricted = 0
    /// https://developer.apple.com/documentation/uikit/uibackgroundrefreshstatus/denied
    case denied = 1
    /// https://developer.apple.com/documentation/uikit/uibackgroundrefreshstatus/available
    case available = 2
}

/// https://developer.apple.com/documentation/uikit/uiapplicationdelegate — iOS 2.0+
/// (`@MainActor protocol UIApplicationDelegate : NSObjectProtocol`). Apple's methods are `optional`;
/// an Objective-C optional requirement cannot be declared on Linux, so the one listed is a plain
/// requirement: a conformer must implement it with exactly Apple's signature.
@available(iOS 2.0, *)
@available(macOS, unavailable)
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:didfinishlaunchingwithoptions:)
    /// — iOS 3.0+: `optional func application(_ application: UIApplication, didFinishLaunchingWithOptions
    /// launchOptions: [UIApplication.LaunchOptionsKey : Any]? = nil) -> Bool` ("If the app supports
    /// scenes, this is `nil`.")
    @available(iOS 3.0, *)
    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool
}
