import Foundation
import Geodesy
import Geofencing
import RegionMonitoring

/// A stand-in for Core Location's `CLMonitor` service, behaving as Apple documents it, for
/// tests on any platform: monitors by name that the system keeps across launches.
///
/// ```swift
/// let system = FakeConditionMonitors()
/// let backend = CoreLocationMonitorBackend(service: system)
/// let monitor = try await Monitor("shops", backend: backend)
/// await monitor.add(.circular(center: shop, radius: 150), identifier: "shop", assuming: .unsatisfied)
/// try await system.move(to: fixInShop)                    // … held 20 s → a satisfied event
/// ```
///
/// - **Assumed state**: a condition starts in the state it was added with; its first
///   determination is reported only if it differs (`add(_:identifier:assuming:)`).
/// - **Transitions**: `Geofencing.Engine` with `HysteresisPolicy.coreLocation` per monitor.
/// - **Limit**: past ``conditionLimit`` conditions (all monitors), an added condition is kept
///   `.unmonitored` with `conditionLimitExceeded` and reported so — by default **late**, as the
///   device does: the record first shows the assumed state, and the `.unmonitored` event comes
///   at the next position (``limitAnsweredLate``).
/// - **One monitor per name per process**: opening a name already open since the last
///   ``terminateApp()`` is the device's crash ("Monitor named … is already in use"): recorded in
///   ``fatalErrors`` for tests to assert on, and the second monitor is dead (no events).
/// - **Later**: events reach ``SystemConditionMonitor/events`` after the call or fix that
///   caused them. ``terminateApp()`` ends every stream; events meanwhile wait for the next
///   ``openMonitor(named:)`` of that name (the relaunched app).
/// - **Authorisation**: only ``AuthorizationStatus/authorizedAlways`` delivers (the fake has no
///   foreground, so when-in-use holds events as an app in the background would). Otherwise
///   conditions are still evaluated but their changes are held; when always-authorisation
///   arrives (``setAuthorization(_:)``), each condition whose state moved away from the last
///   one delivered is reported once, with its state then — so conditions added before
///   permission start when it arrives, and a round trip made meanwhile is not news.
public actor FakeConditionMonitors: SystemMonitorService {
    /// Most conditions per app, over every monitor.
    public let conditionLimit: Int
    /// What the user granted the app.
    public private(set) var authorization: AuthorizationStatus
    /// The last position the device took.
    public private(set) var lastFix: LocationFix?
    /// Events sent so far, over every monitor (delivered or waiting for a relaunch).
    public private(set) var sentCount = 0
    /// The crashes a real device would have had (a name opened twice in one process).
    public private(set) var fatalErrors: [String] = []
    /// Whether the limit is answered at the next position rather than at once.
    public let limitAnsweredLate: Bool
    private var openNames: Set<String> = []
    private var lateRefusals: [(name: String, event: SystemMonitorEvent)] = []
    private var monitors: [String: Book] = [:]
    private static let subject = "system"

    struct Book {
        var order: [String] = []
        var records: [String: SystemMonitorRecord] = [:]
        var engine = Engine(policy: .coreLocation)
        var continuation: AsyncStream<SystemMonitorEvent>.Continuation?
        var waiting: [SystemMonitorEvent] = []
        /// The latest change of each condition while events are held (not authorised).
        var held: [String: SystemMonitorEvent] = [:]
    }

    public init(
        conditionLimit: Int = 20, authorization: AuthorizationStatus = .authorizedAlways, limitAnsweredLate: Bool = true
    ) {
        self.limitAnsweredLate = limitAnsweredLate
        self.conditionLimit = conditionLimit
        self.authorization = authorization
    }

    /// Whether changes reach the app now.
    var delivers: Bool { authorization == .authorizedAlways }

    /// The user's answer changes. Once always-authorised, the changes held meanwhile are
    /// reported: one event per condition whose state differs from the last one delivered.
    public func setAuthorization(_ status: AuthorizationStatus) {
        authorization = status
        guard delivers else { return }
        for name in monitors.keys.sorted() { deliverHeld(in: name) }
    }

    private func deliverHeld(in name: String) {
        guard let book = monitors[name] else { return }
        monitors[name]?.held = [:]
        for id in book.order {
            guard let event = book.held[id], book.records[id]?.lastEvent.state != event.state else { continue }
            monitors[name]?.records[id]?.lastEvent = event
            send(event, in: name)
        }
    }

    public func openMonitor(named name: String) -> any SystemConditionMonitor {
        let (stream, continuation) = AsyncStream.makeStream(of: SystemMonitorEvent.self, bufferingPolicy: .unbounded)
        guard openNames.insert(name).inserted else {
            fatalErrors.append("Monitor named \(name) is already in use")
            continuation.finish()
            return FakeConditionMonitor(name: name, system: self, events: stream)
        }
        var book = monitors[name] ?? Book()
        book.continuation?.finish()
        book.continuation = continuation
        for e in book.waiting { continuation.yield(e) }
        book.waiting = []
        monitors[name] = book
        return FakeConditionMonitor(name: name, system: self, events: stream)
    }

    /// The device takes a position: every monitor's conditions are evaluated.
    /// - Throws: the engine's error for an invalid or out-of-order fix (nothing changes then).
    public func move(to fix: LocationFix) throws(GeofencingError) {
        var f = fix
        f.subject = Self.subject
        var decided: [String: [TransitionEvent]] = [:]
        for name in monitors.keys.sorted() { decided[name] = try monitors[name]?.engine.process(f) ?? [] }
        lastFix = fix
        let refusals = lateRefusals
        lateRefusals = []
        for refusal in refusals where monitors[refusal.name]?.records[refusal.event.identifier] != nil {
            monitors[refusal.name]?.records[refusal.event.identifier]?.lastEvent = refusal.event
            send(refusal.event, in: refusal.name)
        }
        for (name, events) in decided.sorted(by: { $0.key < $1.key }) {
            for e in events where e.kind != .dwell { report(e, in: name) }
        }
    }

    /// The app's process ends: every stream finishes; the system keeps monitoring.
    public func terminateApp() {
        openNames = []
        for name in monitors.keys {
            monitors[name]?.continuation?.finish()
            monitors[name]?.continuation = nil
        }
    }

    /// Conditions monitored now, over every monitor.
    public var monitoredCount: Int {
        monitors.values.reduce(0) { n, b in n + b.records.values.filter { $0.lastEvent.state != .unmonitored }.count }
    }

    // MARK: Used by FakeConditionMonitor

    func add(_ condition: SystemCondition, identifier id: String, assuming state: MonitorState, to name: String) {
        guard var book = monitors[name] else { return }
        let replacing = book.records[id].map { $0.lastEvent.state != .unmonitored } ?? false
        if book.records[id] == nil { book.order.append(id) }
        book.engine.remove(identifier: id)
        let date = lastFix?.timestamp ?? Date(timeIntervalSince1970: 0)
        if !replacing, monitoredCount >= conditionLimit {
            let event = SystemMonitorEvent(
                identifier: id, state: .unmonitored, date: date, diagnostics: .conditionLimitExceeded)
            guard limitAnsweredLate else {
                book.records[id] = SystemMonitorRecord(condition: condition, lastEvent: event)
                monitors[name] = book
                return send(event, in: name)
            }
            // Accepted for now, refused at the next position; counted as monitored meanwhile
            // (an `.unknown` placeholder), as a device that has not answered yet.
            book.records[id] = SystemMonitorRecord(
                condition: condition, lastEvent: SystemMonitorEvent(identifier: id, state: state, date: date))
            monitors[name] = book
            lateRefusals.append((name, event))
            return
        }
        book.records[id] = SystemMonitorRecord(
            condition: condition, lastEvent: SystemMonitorEvent(identifier: id, state: state, date: date))
        try? book.engine.add(
            .circle(
                identifier: id, center: condition.center, radius: condition.radius, initialTrigger: [.enter, .exit]))
        monitors[name] = book
    }

    func remove(_ id: String, from name: String) {
        monitors[name]?.records[id] = nil
        monitors[name]?.held[id] = nil
        monitors[name]?.order.removeAll { $0 == id }
        monitors[name]?.engine.remove(identifier: id)
    }

    func identifiers(of name: String) -> [String] { monitors[name]?.order ?? [] }

    func record(_ id: String, of name: String) -> SystemMonitorRecord? { monitors[name]?.records[id] }

    private func report(_ e: TransitionEvent, in name: String) {
        guard let record = monitors[name]?.records[e.regionID], record.lastEvent.state != .unmonitored else { return }
        let state: MonitorState = e.kind == .enter ? .satisfied : .unsatisfied
        let event = SystemMonitorEvent(identifier: e.regionID, state: state, date: e.time)
        guard delivers else {
            monitors[name]?.held[e.regionID] = event
            return
        }
        monitors[name]?.records[e.regionID]?.lastEvent = event
        if e.isInitial, record.lastEvent.state == state { return } // as assumed: not news
        send(event, in: name)
    }

    private func send(_ event: SystemMonitorEvent, in name: String) {
        sentCount += 1
        if let c = monitors[name]?.continuation { c.yield(event) } else { monitors[name]?.waiting.append(event) }
    }
}

/// One monitor of ``FakeConditionMonitors`` (what `CLMonitor(name)` returns).
public final class FakeConditionMonitor: SystemConditionMonitor {
    public let name: String
    public let events: AsyncStream<SystemMonitorEvent>
    private let system: FakeConditionMonitors

    init(name: String, system: FakeConditionMonitors, events: AsyncStream<SystemMonitorEvent>) {
        self.name = name
        self.system = system
        self.events = events
    }

    public func add(_ condition: SystemCondition, identifier: String, assuming state: MonitorState) async {
        await system.add(condition, identifier: identifier, assuming: state, to: name)
    }

    public func remove(_ identifier: String) async { await system.remove(identifier, from: name) }

    public var identifiers: [String] { get async { await system.identifiers(of: name) } }

    public func record(for identifier: String) async -> SystemMonitorRecord? {
        await system.record(identifier, of: name)
    }
}
