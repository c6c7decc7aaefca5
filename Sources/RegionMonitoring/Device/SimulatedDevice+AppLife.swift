import Foundation

/// App life on the simulated device: app states, wake windows, relaunch, reboot and
/// first unlock, macOS sleep. The rules are in docs/monitoring.md, "App life".
extension SimulatedDevice {
    /// Sets the handler the system calls when it launches the app (the app's
    /// `application(_:didFinishLaunchingWithOptions:)`). It runs synchronously inside the
    /// device, before the event that caused a `.location` launch is handed to the app.
    public func setLaunchHandler(_ handler: (@Sendable (LaunchReason) -> Void)?) {
        launchHandler = handler
    }

    /// Moves the app to `state`, as a script or test drives it.
    ///
    /// - `terminated` / `removed`: the process ends; open ``Monitor`` streams finish (events
    ///   then wait on the device, or are dropped for `removed`).
    /// - `removed`: every monitor and location-manager region is dropped, store included.
    /// - `foreground` / `background` from `terminated` or `removed`: a user launch
    ///   (``LaunchReason/user``) is recorded and the launch handler runs.
    /// Any explicit state ends a running background window.
    public func setAppState(_ state: AppState) {
        let old = settings.appState
        backgroundWindowEnd = nil
        if state == .terminated || state == .removed { endProcess() }
        settings.appState = state
        if state == .removed { dropEverything() }
        if old == .terminated || old == .removed, state == .foreground || state == .background {
            recordLaunch(.user, at: currentDate)
        }
        syncEngine()
    }

    /// Asks for more background time in the current wake window (UIKit's
    /// `beginBackgroundTask`): extends it by `seconds`.
    /// - Returns: the new end of the window, or `nil` if the app is not in a wake window.
    @discardableResult
    public func requestMoreBackgroundTime(_ seconds: TimeInterval) -> Date? {
        guard let end = backgroundWindowEnd else { return nil }
        let newEnd = end.addingTimeInterval(max(0, seconds))
        backgroundWindowEnd = newEnd
        return newEnd
    }

    /// The device restarts: monitoring stops, the app is not running (`terminated` unless
    /// removed), and nothing is monitored or delivered until ``unlock()``.
    public func reboot() {
        endProcess()
        backgroundWindowEnd = nil
        if settings.appState != .removed { settings.appState = .terminated }
        power = .lockedAfterBoot
        syncEngine()
    }

    /// The user unlocks the device for the first time since boot: monitoring resumes for
    /// every persisted monitor and region, each re-evaluated from the next fixes (a change of
    /// state since before the reboot is then reported once; crossings made while locked are
    /// not reported as such). Does nothing if the device was not locked after boot.
    public func unlock() {
        guard power == .lockedAfterBoot else { return }
        power = .on
        syncEngine()
    }

    /// The Mac (or device) goes to sleep: no positions and no events until ``wake()``.
    public func sleep() { systemAwake = false }

    /// The system wakes: positions resume; regions are evaluated from the next fixes.
    public func wake() { systemAwake = true }

    // MARK: Internals

    /// Decides whether a region event happening at `date` reaches the app, waking or
    /// relaunching it first as the platform does. `false`: a documented silence.
    func admitEvent(at date: Date) -> Bool {
        guard power == .on, systemAwake else { return false }
        switch settings.platform {
        case .macOS:
            return settings.appState == .foreground || settings.appState == .background
        case .iOS:
            switch settings.appState {
            case .foreground, .background:
                return true
            case .suspended:
                activity.wakeUps += 1
                settings.appState = .background
                backgroundWindowEnd = date.addingTimeInterval(settings.backgroundWakeDuration)
                return true
            case .terminated:
                activity.relaunches += 1
                settings.appState = .background
                backgroundWindowEnd = date.addingTimeInterval(settings.backgroundWakeDuration)
                recordLaunch(.location, at: date)
                return true
            case .removed:
                return false
            }
        }
    }

    /// Suspends the app again once its background window has passed.
    func expireBackgroundWindow(at date: Date) {
        guard let end = backgroundWindowEnd, date >= end else { return }
        backgroundWindowEnd = nil
        if settings.appState == .background { settings.appState = .suspended }
    }

    func recordLaunch(_ reason: LaunchReason, at date: Date) {
        launches.append(LaunchRecord(reason: reason, date: date))
        launchHandler?(reason)
    }

    /// The app's process ends: open monitor streams finish and its location managers and their
    /// delegates are gone; the device keeps the monitors and the regions.
    func endProcess() {
        for name in monitors.keys {
            monitors[name]?.continuation?.finish()
            monitors[name]?.continuation = nil
            monitors[name]?.owner = nil
        }
        managers.removeAll()
        managerOrder.removeAll()
        stateRequests.removeAll()
    }

    /// The user removed the app: monitors (open, closed or only stored), regions and their
    /// stored copies are dropped.
    func dropEverything() {
        let stored = Set(monitors.keys).union(store?.storedNames() ?? [])
        for name in stored { try? store?.discard(name: name) }
        monitors.removeAll()
        slots = RegionSlots()
        pendingManagerEvents.removeAll()
        managerRegionStates.removeAll()
        appRegions.removeAll()
        appRegionOrder.removeAll()
        _ = store?.saveAppRegions([])
    }
}
