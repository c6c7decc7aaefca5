import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

/// The `killed-app` demo: the shop walk on a simulated iPhone whose app is killed by the system
/// part-way, then relaunched in the background by the next shop's entry event.
///
/// ```swift
/// let result = try await KilledAppScenario(timeZone: .gmt).run()
/// print(result.text)          // the story: kill, relaunch with its launch reason, notifications
/// ```
///
/// The app uses the classic API (`LocationManager` + delegate) with Core Location's rules on a
/// ``SimulatedDevice``: it shows the first shop's notification in the foreground, goes to the
/// background `backgroundAfter` seconds later and is terminated by the system
/// `killAfter` seconds after that. The next entry relaunches it with
/// ``LaunchReason/location``; its launch code sees the reason (and skips the cold start),
/// creates its location manager and sets the delegate, which then receives the event that
/// caused the launch — once. Later events wake the suspended app. Deterministic: time comes
/// from the track.
public struct KilledAppScenario {
    /// The scenario's name for `geofence demo --scenario`.
    public static let id = "killed-app"
    public static let title = "Killed app: the shop walk, relaunched by a region event"

    /// Clock times are printed in this zone (default: London, where the walk is).
    public var timeZone: TimeZone
    /// Seconds after the first notification when the user leaves the app (it goes to the background).
    public var backgroundAfter: TimeInterval = 30
    /// Seconds after that when the system terminates the app.
    public var killAfter: TimeInterval = 60

    public init(timeZone: TimeZone? = nil) {
        self.timeZone = timeZone ?? TimeZone(identifier: "Europe/London") ?? .gmt
    }

    /// One notification the phone showed.
    public struct Notification: Sendable, Hashable {
        public var time: String
        public var text: String
        /// How the app was running when it got the event (`foreground`, `relaunched`, `woken`, `background`).
        public var how: String
    }

    /// What the run produced.
    public struct Result: Sendable {
        public var text: String
        public var launches: [LaunchRecord]
        public var notifications: [Notification]
        /// The launch reasons the app's launch code saw, in order.
        public var launchReasonsSeen: [LaunchReason]
    }

    /// Runs the scenario.
    /// - Throws: ``InputError`` if a bundled file is missing.
    public func run() async throws -> Result {
        let regions = try DemoTrack.regions("shops")
        let fixes = try DemoTrack.fixes("shops", "csv", subject: "walker")
        let byID = Dictionary(regions.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
        var settings = DeviceSettings()
        settings.authorization = .authorizedAlways
        settings.policy = .precise
        let device = SimulatedDevice(
            settings: settings, subject: "walker", start: fixes.first?.timestamp ?? Date(timeIntervalSince1970: 0))
        let launchLog = LaunchReasonLog()
        await device.setLaunchHandler { reason in launchLog.add(reason) } // didFinishLaunching

        var text = "\n▶ \(Self.title)\n"
        var notifications: [Notification] = []
        func clock(_ d: Date) -> String { TimestampFormat.clockTime(d, in: timeZone) }

        // Cold start by the user: create the manager, set the delegate, register the shops.
        var delegate = ShopDelegate()
        var manager = await LocationManager(device: device)
        await manager.setDelegate(delegate)
        for r in regions {
            guard case .circle(let center, let radius) = r.shape else { continue }
            await manager.startMonitoring(for: CircularRegion(center: center, radius: radius, identifier: r.identifier))
        }
        if let first = fixes.first {
            text +=
                "  \(clock(first.timestamp))  app opened by the user; monitoring \(await manager.monitoredRegions.count) shops\n"
        }
        var backgroundAt: Date?
        var killAt: Date?
        var seenLaunches = 0
        var seenWakeUps = 0
        for fix in fixes {
            if let b = backgroundAt, fix.timestamp >= b {
                await device.setAppState(.background)
                text += "  \(clock(b))  the user switches to another app (\(Self.name(.background)))\n"
                backgroundAt = nil
            }
            if let k = killAt, backgroundAt == nil, fix.timestamp >= k {
                await device.setAppState(.terminated)
                text += "  \(clock(k))  ✖ the system kills the app to free memory (terminated)\n"
                killAt = nil
            }
            try? await device.receive(.fix(fix))
            let launches = await device.launches
            var how = Self.name(await device.settings.appState)
            if launches.count > seenLaunches, let launch = launches.last {
                seenLaunches = launches.count
                let reason = launchLog.reasons.last ?? launch.reason
                text += "  \(clock(launch.date))  ↻ relaunched in the background — launch reason: \(reason.rawValue)"
                text += reason == .location ? " (a region event: skip the cold start, just handle it)\n" : "\n"
                // The relaunched app's launch code: a new manager and delegate get the event.
                delegate = ShopDelegate()
                manager = await LocationManager(device: device)
                await manager.setDelegate(delegate)
                how = "relaunched"
            }
            let wakeUps = await device.activity.wakeUps
            if wakeUps > seenWakeUps {
                seenWakeUps = wakeUps
                how = "woken"
            }
            for (kind, id) in delegate.take() {
                let event = TransitionEvent(
                    kind: kind, regionID: id, subject: "walker", fix: fix,
                    time: fix.timestamp, crossedAt: fix.timestamp)
                guard let message = PhoneNotification.text(for: event, region: byID[id], regions: byID) else {
                    continue
                }
                let n = Notification(time: clock(fix.timestamp), text: message, how: how)
                notifications.append(n)
                text += "  \(n.time)  🔔 \(message)  [app \(how)]\n"
                if notifications.count == 1 {
                    backgroundAt = fix.timestamp.addingTimeInterval(backgroundAfter)
                    killAt = fix.timestamp.addingTimeInterval(backgroundAfter + killAfter)
                }
            }
        }
        let launches = await device.launches
        text += "  launches: " + launches.map { "\($0.reason.rawValue) at \(clock($0.date))" }.joined(separator: ", ")
        text += "; wake-ups from suspended: \(await device.activity.wakeUps)\n"
        return Result(
            text: text, launches: launches, notifications: notifications, launchReasonsSeen: launchLog.reasons)
    }

    static func name(_ state: AppState) -> String {
        switch state {
        case .foreground: "foreground"
        case .background: "background"
        case .suspended: "suspended"
        case .terminated: "terminated"
        case .removed: "removed"
        }
    }
}

/// The demo app's location-manager delegate: collects region events for the notification code.
final class ShopDelegate: LocationManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var events: [(TransitionEvent.Kind, String)] = []

    func locationManager(_ manager: LocationManager, didEnterRegion region: MonitoredRegion) {
        lock.withLock { events.append((.enter, region.identifier)) }
    }

    func locationManager(_ manager: LocationManager, didExitRegion region: MonitoredRegion) {
        lock.withLock { events.append((.exit, region.identifier)) }
    }

    /// The events received since the last call.
    func take() -> [(TransitionEvent.Kind, String)] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }
}

/// The launch reasons the app's launch handler saw.
final class LaunchReasonLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [LaunchReason] = []
    var reasons: [LaunchReason] { lock.withLock { log } }
    func add(_ r: LaunchReason) { lock.withLock { log.append(r) } }
}
