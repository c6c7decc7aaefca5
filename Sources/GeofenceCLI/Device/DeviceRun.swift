import Foundation
import Geodesy
import GeofenceServer
import Geofencing
import RegionMonitoring
import RegionPlanner

/// A phone played against a running server: a ``SimulatedDevice`` with `slots` region slots
/// monitors what the server's plans say (RegionPlanner's ``ServerPlanFollower``), fix by fix;
/// the fixes are reported to the server in batches. What `geofence device` runs.
///
/// ```swift
/// let summary = try await DeviceRun(server: "http://127.0.0.1:8080", key: key, device: "phone")
///     .run(fixes) { event in print(event) }
/// ```
public struct DeviceRun: Sendable {
    public var server: String
    public var key: String
    public var device: String
    public var slots = 20
    /// Fixes per `POST /v1/devices/{id}/locations`; 0 reports nothing.
    public var reportBatch = 500
    /// The phone's longest time between fixes, told to the server (`nil`: its 1 s assumption).
    public var fixInterval: TimeInterval? = nil
    public var transport = AsyncHTTPClientPlanTransport()

    public init(server: String, key: String, device: String) {
        self.server = server
        self.key = key
        self.device = device
    }

    /// What a run did.
    public struct Summary: Sendable {
        public var fixes = 0
        public var plans = PlanSourceStatistics()
        public var follower = FollowerStatistics()
        public var events: [PlannerEvent] = []
        public var fixesReported = 0
        /// Events the server's engine (holding the whole catalogue) found in the reported fixes.
        public var serverEvents = 0
        public var errors: [String] = []
        /// Why the fixes stopped being reported, if they did.
        public var reportError: String?
        /// Identifiers registered after the last fix (with prefixes), without the re-plan circle.
        public var registeredAtEnd: Set<String> = []
        /// Each plan applied: at which fix, and what it left registered.
        public var plansApplied: [AppliedPlan] = []
    }

    /// A plan the phone applied.
    public struct AppliedPlan: Sendable {
        /// The fix it was applied at (before the monitor processed it).
        public var fix: LocationFix
        /// Whether it had monitoring on.
        public var monitoring: Bool
        /// The identifiers registered after it (with prefixes), without the re-plan circle.
        public var registered: Set<String>
    }

    /// Plays `fixes` (one subject, in time order); `onEvent` sees each region event as the
    /// device reports it. `beforeFix` runs before each fix (tests change the server there).
    public func run(
        _ fixes: [LocationFix], beforeFix: @Sendable (Int, LocationFix) async throws -> Void = { _, _ in },
        onEvent: (PlannerEvent) -> Void = { _ in }
    ) async throws -> Summary {
        var summary = Summary()
        guard let first = fixes.first else { return summary }
        var settings = DeviceSettings()
        settings.authorization = .authorizedAlways
        settings.regionLimit = slots
        let phone = SimulatedDevice(settings: settings, subject: device, start: first.timestamp)
        let monitor = try await Monitor("plans", device: phone)
        let slotMonitor = await MonitorSlotMonitor(monitor: monitor)
        let source = ServerPlanSource(
            server: server, key: key, device: device, slots: slots, fixInterval: fixInterval,
            transport: transport)
        let follower = ServerPlanFollower(monitor: slotMonitor, source: source)
        var pending: [LocationFix] = []
        var reporting = reportBatch > 0
        for (i, fix) in fixes.enumerated() {
            try await beforeFix(i, fix)
            // Hybrid mode (a dense area): the follower's own engines confirm events at the fix.
            for p in await follower.observe(fix) {
                summary.events.append(p)
                onEvent(p)
            }
            let applied = await follower.statistics.plansApplied
            if applied > summary.plansApplied.count {
                summary.plansApplied.append(
                    AppliedPlan(
                        fix: fix, monitoring: await follower.monitoring,
                        registered: await follower.registeredIdentifiers))
            }
            try? await phone.receive(.fix(fix))
            for e in slotMonitor.takeEvents() {
                for p in await follower.handle(e) {
                    summary.events.append(p)
                    onEvent(p)
                }
            }
            summary.fixes += 1
            pending.append(fix)
            if reporting, pending.count >= reportBatch { reporting = await tryReport(&pending, into: &summary) }
        }
        if reporting, !pending.isEmpty { reporting = await tryReport(&pending, into: &summary) }
        summary.plans = await source.statistics
        summary.follower = await follower.statistics
        summary.errors = await follower.errors.map(\.description)
        summary.registeredAtEnd = await follower.registeredIdentifiers
        await monitor.close()
        return summary
    }

    /// Reports the pending fixes; a refusal (a 409 when the device already reported later
    /// fixes: the same track played twice under one id) stops reporting for the rest of the
    /// run and is noted in ``Summary/reportError``, while the phone plays on.
    private func tryReport(_ fixes: inout [LocationFix], into summary: inout Summary) async -> Bool {
        do {
            try await report(&fixes, into: &summary)
            return true
        } catch {
            summary.reportError = "\(error)"
            fixes.removeAll()
            return false
        }
    }

    private func report(_ fixes: inout [LocationFix], into summary: inout Summary) async throws {
        let body = ServerJSON.array(fixes.map(FixJSON.json)).encoded()
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/")
        let id = device.addingPercentEncoding(withAllowedCharacters: allowed) ?? device
        let url = "\(server.hasSuffix("/") ? String(server.dropLast()) : server)/v1/devices/\(id)/locations"
        let r = try await transport.post(url, headers: [("Authorization", "Bearer \(key)")], json: body)
        guard r.status == 200 else {
            let detail = (try? ServerJSON(parsing: r.body))?["detail"]?.stringValue ?? ""
            throw DeviceRunError.reportRefused(status: r.status, detail: detail)
        }
        let answer = try? ServerJSON(parsing: r.body)
        summary.fixesReported += fixes.count
        summary.serverEvents += answer?["events"]?.arrayValue?.count ?? 0
        fixes.removeAll(keepingCapacity: true)
    }
}

extension DeviceRun {
    /// The longest time between consecutive fixes (seconds, at most an hour), or `nil` for
    /// fixes at most a second apart: what the phone tells the server so that its re-plan
    /// circles keep the guarantee for the track's cadence.
    public static func longestInterval(_ fixes: [LocationFix]) -> TimeInterval? {
        var longest = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            longest = max(longest, b.timestamp.timeIntervalSince(a.timestamp))
        }
        return longest > 1 ? min(longest, 3_600) : nil
    }

    /// The track's fixes for `subject`, in file order; unreadable records are counted.
    public static func fixes(track path: String, subject: String) throws -> ([LocationFix], Int) {
        var source = try InputFiles.openTrack(path: path).source
        var fixes: [LocationFix] = []
        var rejected = 0
        while let record = try source.next() {
            switch record {
            case .position(let p):
                guard let c = try? Coordinate(latitude: p.latitude, longitude: p.longitude) else {
                    rejected += 1
                    continue
                }
                fixes.append(
                    LocationFix(
                        subject: subject, coordinate: c, horizontalAccuracy: p.accuracy, timestamp: p.time,
                        speed: p.speed, course: p.course))
            case .rejected:
                rejected += 1
            }
        }
        return (fixes, rejected)
    }
}

/// Why a device run stopped.
public enum DeviceRunError: Error, CustomStringConvertible {
    case reportRefused(status: Int, detail: String)

    public var description: String {
        switch self {
        case .reportRefused(let status, let detail): "the server refused the fixes (\(status)): \(detail)"
        }
    }
}
