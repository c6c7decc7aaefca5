import RegionMonitoring
import SwiftUI
import UIKit

struct ContentView: View {
    let stack: GeofenceStack
    @Environment(\.scenePhase) private var phase

    var body: some View {
        NavigationStack {
            List {
                Section("Alerts") {
                    LabeledContent("Location", value: stack.authorization.rawValue)
                    if stack.authorization != .authorizedAlways {
                        Button(
                            stack.authorization == .notDetermined
                                ? "Turn on shop alerts" : "Alert me when the app is closed"
                        ) {
                            Task { await stack.enableAlerts() }
                        }
                    }
                    if stack.authorization == .denied || stack.authorization == .restricted {
                        Button("Open Settings") {
                            UIApplication.shared.open(URL(string: UIApplication.openSettingsURLString)!)
                        }
                    }
                    Button("Turn alerts off", role: .destructive) { Task { await stack.disableAlerts() } }
                }
                if stack.backgroundRefresh != .available {
                    Section {
                        Label(
                            "Background App Refresh is off: no alerts while the app is closed. Turn it on in Settings ▸ General ▸ Background App Refresh.",
                            systemImage: "exclamationmark.triangle")
                    }
                }
                if let alert = stack.lastAlert { Section("Last") { Text(alert) } }
            }
            .navigationTitle("Shop alerts")
        }
        .onChange(of: phase) { _, now in if now == .active { stack.refreshBackgroundStatus() } }
        .onReceive(
            NotificationCenter.default.publisher(for: UIApplication.backgroundRefreshStatusDidChangeNotification)
        ) { _ in
            stack.refreshBackgroundStatus()
        }
    }
}
