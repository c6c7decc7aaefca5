import SwiftUI

@main
struct ShopAlertsApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var appDelegate

    var body: some Scene {
        WindowGroup { ContentView(stack: appDelegate.stack) }
    }
}
