import SwiftUI
import UIKit

@main
struct ShopAlertsApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup { ContentView(stack: appDelegate.stack) }
    }
}

/// Builds the stack at every launch: iOS relaunches the app in the background for a region
/// event and delivers it to a location manager created during that launch.
final class AppDelegate: NSObject, UIApplicationDelegate {
    let stack = GeofenceStack()

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil
    ) -> Bool {
        // A location launch runs in the background with ~10 s: handle the event, skip the rest.
        let locationLaunch = application.applicationState == .background
        Task { @MainActor in
            await stack.launch()
            if !locationLaunch { await stack.coldStart() }
        }
        return true
    }
}
