import CoreLocation
import CoreLocationBridge
import Foundation
import Geofencing
import Observation
import RegionMonitoring
import RegionPlanner
import UIKit
import UserNotifications

/// Core Location → backend → manager → planner → notifications, owned by the app delegate.
///
/// The `CLLocationManager` is created in `init`, during launch, so that the region event iOS
/// relaunched the app for reaches it; everything that must await comes after, in ``launch()``.
/// Authorisation is read from the delegate only: a request's answer comes later.
@MainActor
@Observable
final class GeofenceStack {
    private(set) var authorization: AuthorizationStatus = .notDetermined
    private(set) var backgroundRefresh: UIBackgroundRefreshStatus = .available
    private(set) var lastAlert: String?

    private let system: AppleLocationManager
    private var backend: CoreLocationManagerBackend?
    private var manager: LocationManager?
    private var slots: LocationManagerSlotMonitor?
    private var planner: RegionPlanner<LocationManagerSlotMonitor>?
    private var watcher: AuthorizationWatcher?
    private var loop: Task<Void, Never>?

    private var storeDirectory: URL {
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        return support.appendingPathComponent("Geofence", isDirectory: true)
    }

    init() {
        system = AppleLocationManager()
        // The planner's re-plans and dense areas use continuous updates; in the background they
        // need `UIBackgroundModes` → `location` in Info.plist (without it, this line traps).
        system.manager.allowsBackgroundLocationUpdates = true
        // iOS must not pause them on its own: a paused manager stops re-planning until the app
        // is opened again.
        system.manager.pausesLocationUpdatesAutomatically = false
        system.manager.showsBackgroundLocationIndicator = true
    }

    /// Every launch, right after `init`: the rest of the stack, then the saved plan.
    ///
    /// The planner's adapter is wired first: it is the delegate the relaunch's event is for.
    /// The backend keeps region events 60 s for delegates set later (`EventHold`), so another
    /// order loses nothing either. A region event holds a background task (`BackgroundTime`)
    /// until a position comes or the time left runs out, less a few seconds for the notification.
    func launch() async {
        let backend = await CoreLocationManagerBackend(system: system, background: BackgroundTime())
        let slots = await LocationManagerSlotMonitor(manager: await LocationManager(backend: backend))
        let watcher = AuthorizationWatcher(stack: self)
        let statusManager = await LocationManager(backend: backend)
        await statusManager.setDelegate(watcher) // answers now, and on every change
        (self.backend, self.manager, self.slots, self.watcher) = (backend, statusManager, slots, watcher)
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

    /// The user turns alerts on: when-in-use now, the "Always" upgrade once they used it. The
    /// answer arrives through ``authorizationChanged(_:)``.
    func enableAlerts() async {
        guard let manager else { return }
        if authorization == .notDetermined {
            await manager.requestWhenInUseAuthorization()
        } else {
            await manager.requestAlwaysAuthorization()
        }
    }

    /// The delegate's answer: planning starts once location is authorised.
    func authorizationChanged(_ status: AuthorizationStatus) async {
        authorization = status
        guard status.isAuthorized, let planner, let backend, await planner.plan == nil,
            let here = await backend.currentLocation()
        else { return }
        do { try await planner.start(at: here) } catch { lastAlert = "Planner: \(error)" }
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
                    // Any order is fine: the planner gives the same events (docs/planner.md).
                    // Events come at once, with a recent position or their region's own fix:
                    // the notification never waits for a position.
                    for fix in slots.takeLocations() { self.notify(try await planner.observe(fix)) }
                    for event in await slots.takeEvents() { self.notify(try await planner.handle(event)) }
                    for failure in slots.takeFailures() { await planner.handleRefusal(failure) }
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

/// Hands Core Location's authorisation answers to the stack, on the main actor.
final class AuthorizationWatcher: LocationManagerDelegate, @unchecked Sendable {
    private weak var stack: GeofenceStack?

    init(stack: GeofenceStack) { self.stack = stack }

    func locationManager(_ manager: LocationManager, didChangeAuthorization status: AuthorizationStatus) {
        Task { @MainActor [weak stack] in await stack?.authorizationChanged(status) }
    }
}
