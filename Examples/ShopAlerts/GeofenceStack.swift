import CoreLocationBridge
import Foundation
import Geofencing
import Observation
import RegionMonitoring
import RegionPlanner
import UIKit
import UserNotifications

/// Core Location → backend → manager → planner → notifications, owned by the app delegate.
@MainActor
@Observable
final class GeofenceStack {
    private(set) var authorization: AuthorizationStatus = .notDetermined
    private(set) var backgroundRefresh: UIBackgroundRefreshStatus = .available
    private(set) var lastAlert: String?

    private var system: AppleLocationManager?
    private var backend: CoreLocationManagerBackend?
    private var manager: LocationManager?
    private var slots: LocationManagerSlotMonitor?
    private var planner: RegionPlanner<LocationManagerSlotMonitor>?
    private var loop: Task<Void, Never>?

    private var storeDirectory: URL {
        URL.applicationSupportDirectory.appending(path: "Geofence", directoryHint: .isDirectory)
    }

    /// Every launch, before anything else: recreate the stack and continue the saved plan.
    func launch() async {
        let system = AppleLocationManager()
        system.manager.allowsBackgroundLocationUpdates = true // the planner's re-plan probes
        let backend = await CoreLocationManagerBackend(system: system)
        let manager = await LocationManager(backend: backend)
        let slots = await LocationManagerSlotMonitor(manager: manager)
        (self.system, self.backend, self.manager, self.slots) = (system, backend, manager, slots)
        authorization = await manager.authorizationStatus
        do {
            let planner = try RegionPlanner(
                monitor: slots, sources: [try Shops.source()],
                sizing: ReplanSizing(
                    policy: .coreLocation, largestRegionSize: 200, maximumSpeed: 40, maximumFixInterval: 5),
                store: FilePlannerStore(directory: storeDirectory, monitorName: "shops"))
            self.planner = planner
            _ = try await planner.restore()
            protectStore()
        } catch {
            lastAlert = "Planner unavailable: \(error)"
        }
        startLoop()
    }

    /// A user launch only: what a background relaunch must not spend its seconds on.
    func coldStart() async {
        backgroundRefresh = UIApplication.shared.backgroundRefreshStatus
        _ = try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound])
    }

    /// The user turns alerts on: when-in-use now, the "Always" upgrade once they used it.
    func enableAlerts() async {
        guard let manager, let backend else { return }
        if await manager.authorizationStatus == .notDetermined {
            await manager.requestWhenInUseAuthorization()
        } else {
            await manager.requestAlwaysAuthorization()
        }
        authorization = await manager.authorizationStatus
        guard authorization.isAuthorized, let planner, await planner.plan == nil,
            let here = await backend.currentLocation()
        else { return }
        try? await planner.start(at: here)
    }

    /// The user turns alerts off: regions stopped, the saved plan (two fixes) deleted.
    func disableAlerts() async {
        await planner?.setEnabled(false)
        try? FileManager.default.removeItem(at: storeDirectory)
    }

    func refreshBackgroundStatus() { backgroundRefresh = UIApplication.shared.backgroundRefreshStatus }

    private func startLoop() {
        guard let slots else { return }
        loop?.cancel()
        loop = Task { [weak self] in
            for await _ in slots.arrivals {
                guard let self, let planner = self.planner else { return }
                do {
                    for fix in slots.takeLocations() { self.notify(try await planner.observe(fix)) }
                    for event in await slots.takeEvents() { self.notify(try await planner.handle(event)) }
                } catch {
                    self.lastAlert = "Planner: \(error)"
                }
            }
        }
    }

    private func notify(_ events: [PlannerEvent]) {
        for event in events where event.kind == .enter {
            let content = UNMutableNotificationContent()
            content.title = "You are at \(event.identifier)"
            content.sound = .default
            UNUserNotificationCenter.current().add(
                UNNotificationRequest(
                    identifier: "\(event.identifier)-\(event.event.time.timeIntervalSince1970)",
                    content: content, trigger: nil))
            lastAlert = content.title
        }
    }

    /// The planner's file holds the last two fixes: readable after the first unlock (a
    /// relaunch after a reboot), never backed up.
    private func protectStore() {
        var url = storeDirectory
        try? FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true,
            attributes: [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication])
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        try? url.setResourceValues(values)
    }
}
