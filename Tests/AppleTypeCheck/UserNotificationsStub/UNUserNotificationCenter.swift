// A stub of the UserNotifications declarations the example app and docs/ios.md use, declaration
// by declaration as Apple's SDK declares them (name, signature, async/throws, `@Sendable`
// handlers, `@available` per platform), so that those files are type-checked and their
// availability checked on Linux. The module is named UserNotifications. Nothing here runs: every
// body traps. Add a declaration only with its documentation page, and copy it exactly. Unless a
// comment says otherwise, a declaration is iOS 10.0+ macOS 10.14+ tvOS 10.0+ watchOS 3.0+ (the
// framework's first release; each page linked lists these). Sendable: no class here claims it,
// as no page found says it (stricter than the SDK may be; see the report).
// Apple's UserNotifications re-exports Foundation (its headers import <Foundation/Foundation.h>).
@_exported import Foundation

private func stub() -> Never { fatalError("UserNotifications stub: type-checking only") }

/// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNUserNotificationCenter: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/current()
    open class func current() -> UNUserNotificationCenter { stub() }

    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/delegate
    weak open var delegate: (any UNUserNotificationCenterDelegate)? {
        get { stub() }
        set { stub() }
    }

    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/requestauthorization(options:completionhandler:)
    /// — `func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping
    /// @Sendable (Bool, (any Error)?) -> Void)`
    open func requestAuthorization(
        options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) { stub() }

    /// The `async` import of the same method (a completion handler with a value and an error is
    /// imported as `async throws -> Bool`):
    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/requestauthorization(options:completionhandler:)
    open func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool { stub() }

    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/add(_:withcompletionhandler:)
    /// — `func add(_ request: UNNotificationRequest, withCompletionHandler completionHandler:
    /// (@Sendable ((any Error)?) -> Void)? = nil)`
    open func add(
        _ request: UNNotificationRequest,
        withCompletionHandler completionHandler: (@Sendable ((any Error)?) -> Void)? = nil
    ) { stub() }

    /// The `async` import of the same method:
    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenter/add(_:withcompletionhandler:)
    open func add(_ request: UNNotificationRequest) async throws { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions
public struct UNAuthorizationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions/badge
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions/sound
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions/alert
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    /// https://developer.apple.com/documentation/usernotifications/unauthorizationoptions/provisional
    /// — iOS 12.0+ macOS 10.14+
    @available(iOS 12.0, macOS 10.14, tvOS 12.0, watchOS 5.0, *)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)
}

/// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions
public struct UNNotificationPresentationOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions/badge
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    /// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions/sound
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    /// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions/list
    /// — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    /// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions/banner
    /// — iOS 14.0+ macOS 11.0+
    @available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)
}

/// https://developer.apple.com/documentation/usernotifications/unnotificationcontent
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNNotificationContent: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unnotificationcontent/title
    open var title: String { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationcontent/body
    open var body: String { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationcontent/sound
    /// (`@NSCopying var sound: UNNotificationSound? { get }`)
    open var sound: UNNotificationSound? { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNMutableNotificationContent: UNNotificationContent {
    public override init() { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent/title
    open override var title: String {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent/body
    open override var body: String {
        get { stub() }
        set { stub() }
    }
    /// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent/sound
    /// (`@NSCopying var sound: UNNotificationSound? { get set }`)
    open override var sound: UNNotificationSound? {
        get { stub() }
        set { stub() }
    }
}

/// https://developer.apple.com/documentation/usernotifications/unnotificationsound
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNNotificationSound: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unnotificationsound/default
    /// (`class var `default`: UNNotificationSound { get }`)
    open class var `default`: UNNotificationSound { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unnotificationtrigger
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNNotificationTrigger: NSObject {}

/// https://developer.apple.com/documentation/usernotifications/unnotificationrequest
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNNotificationRequest: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unnotificationrequest/init(identifier:content:trigger:)
    /// (`convenience init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?)`)
    public convenience init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        stub()
    }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationrequest/identifier
    open var identifier: String { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationrequest/content
    /// (Apple: `@NSCopying var content: UNNotificationContent { get }`)
    open var content: UNNotificationContent { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unnotification
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
open class UNNotification: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unnotification/request
    /// (Apple: `@NSCopying var request: UNNotificationRequest { get }`)
    open var request: UNNotificationRequest { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unnotification/date
    open var date: Date { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unnotificationresponse
@available(iOS 10.0, macOS 10.14, watchOS 3.0, *)
@available(tvOS, unavailable)
open class UNNotificationResponse: NSObject {
    /// https://developer.apple.com/documentation/usernotifications/unnotificationresponse/notification
    /// (Apple: `@NSCopying var notification: UNNotification { get }`)
    open var notification: UNNotification { stub() }
    /// https://developer.apple.com/documentation/usernotifications/unnotificationresponse/actionidentifier
    open var actionIdentifier: String { stub() }
}

/// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate
/// (`protocol UNUserNotificationCenterDelegate : NSObjectProtocol`). Apple's methods are `optional`
/// and each has a completion-handler form and an `async` form; an Objective-C optional requirement
/// cannot be declared on Linux, so the `async` forms our code implements are plain requirements
/// here: a conformer must implement both, with exactly Apple's signature.
@available(iOS 10.0, macOS 10.14, tvOS 10.0, watchOS 3.0, *)
public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate/usernotificationcenter(_:willpresent:withcompletionhandler:)
    /// — its `async` form (the completion handler `@escaping @Sendable (UNNotificationPresentationOptions)
    /// -> Void` becomes the result)
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions
    /// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate/usernotificationcenter(_:didreceive:withcompletionhandler:)
    /// — its `async` form; iOS 10.0+ macOS 10.14+ watchOS 3.0+, no tvOS
    @available(tvOS, unavailable)
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async
}
