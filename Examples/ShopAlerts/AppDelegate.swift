import UIKit
import UserNotifications

/// Builds the stack during every launch, before `didFinishLaunching` returns: iOS relaunches
/// the app in the background for a region event and hands it to a location manager created
/// during that launch (docs/ios.md, section 4).
@MainActor
final class AppDelegate: NSObject, UIApplicationDelegate {
    /// The Core Location side exists as soon as the delegate does (at launch, on the main actor).
    let stack = GeofenceStack()
    private let notifications = NotificationPresenter()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        // Before returning: a notification tapped while the app was not running is delivered
        // to the delegate set here; foreground alerts need it too.
        UNUserNotificationCenter.current().delegate = notifications
        // A location launch runs in the background with ~10 s: handle the event, skip the rest.
        let locationLaunch = application.applicationState == .background
        let stack = self.stack
        Task { @MainActor in
            await stack.launch()
            if !locationLaunch { await stack.coldStart() }
        }
        return true
    }
}

/// Shows the shop alert as a banner even while the app is open (iOS hides notifications of the
/// app in use unless its delegate says otherwise).
final class NotificationPresenter: NSObject, UNUserNotificationCenterDelegate, Sendable {
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        [.banner, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
    }
}
