import Foundation
import Geodesy
import Geofencing

/// Serves catalogues of any size through a monitor with a few slots, so that the app hears the
/// entries and exits one engine watching the whole catalogue would report (docs/planner.md:
/// the rule, the stated conditions with their numbers, the proof sketch and the limits).
///
/// ```swift
/// let monitor = EngineSlotMonitor(subject: "phone", policy: .coreLocation)   // 20 slots
/// let planner = try RegionPlanner(
///     monitor: monitor,
///     sources: [PlannerSource(prefix: "acme.", catalogue: try Catalogue(shops))],
///     sizing: ReplanSizing(policy: .coreLocation, largestRegionSize: 2_000,
///                          maximumSpeed: 40, maximumFixInterval: 1, glitchAllowance: 250),
///     policy: .coreLocation)
/// try await planner.start(at: firstFix)
/// // every fix the app receives (continuous updates in hybrid mode):
/// for event in try await planner.observe(fix) { notify(event) }
/// // every monitor event:
/// for event in try await planner.handle(monitorEvent) { notify(event) }
/// ```
///
/// - **Slot mode**: the `slots − 1` nearest entries (signed boundary distance, over all
///   sources) and a *re-plan region* around the newest trusted fix, sized so that no
///   unregistered region can be reached before its exit is reported. The re-plan region asks
///   for an initial exit, so a subject already outside it when it is registered re-plans too.
///   Regions that stay keep their monitor state; removals happen before additions.
/// - **Re-plans** follow everything the planner learns: the re-plan region's exit (initial or
///   not), ``refresh()`` (a state answer after a wake), a fix from ``observe(_:)`` that comes
///   too close to an unregistered region, live catalogue edits. Always at the newest fix that
///   agrees with the track; a fix far off it (a glitch) waits for the next fixes.
/// - **Hybrid mode**: where the nearest `slots − 1` cannot cover the re-plan circle (a dense
///   downtown) or the fix interval is too long, the planner asks the monitor for continuous
///   updates and evaluates the nearby catalogue itself with `Engine`s (``SoftEvaluator``);
///   it returns to slot mode when the area thins out. ``status`` and ``takeNotices()`` show it.
/// - **Conditions**: a fix interval, speed or gap beyond the sizing, or a re-plan event from
///   further than the plan allows, is reported (``PlannerNotice``), never silent.
/// - **Live catalogue**: ``add(_:to:)``, ``remove(_:from:)``, ``removeAll(from:identifiersStartingWith:)``.
/// - **Relaunch**: with a ``PlannerStateStore`` the state is saved after every change and
///   ``restore()`` reconciles it with what the monitor still holds.
///
/// Concurrency: an actor; the monitor is `Sendable`. Cost: a re-plan is a k-nearest query per
/// source (≈ 10–100 µs on a million regions) plus the monitor calls for regions that change;
/// a fix in hybrid mode is one `Engine.process` per live cohort over a few hundred regions.
public actor RegionPlanner<Monitor: SlotMonitor> {
    /// Identifier prefix the planner keeps for its own regions (the re-plan circle).
    public static var reservedPrefix: String { "_planner." }
    /// Identifier of the re-plan region.
    public static var replanIdentifier: String { reservedPrefix + "replan" }

    /// A plan in force.
    public typealias Plan = PlannerPlan

    struct CachedChildren: Sendable {
        var children: [CatalogueEntry]
        var loadedAt: Date
    }

    public nonisolated let monitor: Monitor
    /// The stated conditions (the sizing uses the longer observed fix interval when there is one).
    public nonisolated let sizing: ReplanSizing
    /// The monitor's hysteresis rule, which the planner's own engine applies in hybrid mode.
    public nonisolated let policy: HysteresisPolicy
    /// Slots the planner may use (defaults to the monitor's capacity).
    public nonisolated let slots: Int
    /// Radius of the hybrid working set (metres, signed boundary distance from its centre).
    public nonisolated let workingRadius: Double
    /// Most regions in the hybrid working set.
    public nonisolated let workingLimit: Int
    /// Whether the planner may switch to hybrid mode (`false`: plans that cannot keep the
    /// guarantee stay in slot mode with the smallest radius, flagged `guaranteed == false`).
    public nonisolated let allowsHybrid: Bool
    var sources: [PlannerSource]
    let now: @Sendable () -> Date
    let store: (any PlannerStateStore)?
    /// Catalogue regions the monitor holds for the planner (prefixed id → source, id).
    var registered: [String: Registration] = [:]
    /// Regions unregistered lately, whose events confirmed before may still arrive.
    var retired: [String: RetiredRegistration] = [:]
    var replanRegistered = false
    var soft: SoftEvaluator
    var mode: PlannerMode = .slots
    var hybridSince: Date?
    var track: TrackFilter
    /// A re-plan waits for the next trusted fix (``observe(_:)``).
    var awaitingFix = false
    /// When the re-plan region's exit that ``awaitingFix`` answers was confirmed.
    var awaitedExitTime: Date?
    /// The longest lateness of a monitor event seen so far, capped (``noteLatency(confirmedAt:seenAt:)``):
    /// later plans are sized for it until ``learnedLatencyLifetime`` passes with no late event.
    var learnedEventLatency: TimeInterval = 0
    /// When (planner clock) an event was last later than the stated latency; nil: never.
    var learnedEventLatencyAt: Date?
    var updatesRequested = false
    /// Usable slots after the monitor's foreign regions.
    var usableSlots: Int
    var lastBreach: ConditionBreach?
    var breachSincePlan = false
    /// Whether the last fix claimed a coarser accuracy than the sizing's (one notice per run).
    var inCoarseRun = false
    var noticeLog: [PlannerNotice] = []
    var subject: String?
    /// Regions new to the catalogue waiting for the next fix to be registered (slot mode).
    var pendingFresh: Set<String> = []
    /// The last accepted fix counted in ``PlannerStatistics/distanceMeters``.
    var odometerFix: LocationFix?
    /// Children loaded per (source prefix, parent identifier).
    var loadedChildren: [String: [String: [String]]] = [:]
    var cache: [String: [String: CachedChildren]] = [:]

    /// The plan in force, `nil` before ``start(at:)`` or while switched off.
    public internal(set) var plan: Plan?
    /// Whether the planner is running.
    public internal(set) var isEnabled = false
    /// Work counters.
    public internal(set) var statistics = PlannerStatistics()
    /// Tier loader failures so far (the parent's children stay unloaded).
    public internal(set) var loaderErrors: [PlannerError] = []
    /// State store failures so far (planning went on; the saved state may be older).
    public internal(set) var storeErrors: [PlannerError] = []

    /// - Parameters:
    ///   - policy: the monitor's hysteresis rule (the planner's own engine uses it in hybrid mode).
    ///   - slots: slots to use, at least 2 (defaults to `monitor.slotCapacity`).
    ///   - workingRadius: hybrid working-set radius (default: twice the registration clearance,
    ///     at least 1.5 km).
    ///   - workingLimit: most regions in the hybrid working set (bounds the work per fix).
    ///   - allowsHybrid: `false` keeps slot mode even where it cannot keep the guarantee.
    ///   - store: where the planner's state is saved for ``restore()``.
    ///   - now: the clock for tier cache expiry and for refusing fixes stamped in the future.
    /// - Throws: ``PlannerError/prefixClash(_:_:)`` or ``PlannerError/invalidConfiguration(field:reason:)``
    ///   (too few slots, a working radius within the largest margin, an event latency that is
    ///   negative or not finite).
    public init(
        monitor: Monitor, sources: [PlannerSource], sizing: ReplanSizing,
        policy: HysteresisPolicy = .coreLocation, slots: Int? = nil,
        workingRadius: Double? = nil, workingLimit: Int = 5_000, allowsHybrid: Bool = true,
        store: (any PlannerStateStore)? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws(PlannerError) {
        let n = slots ?? monitor.slotCapacity
        guard n >= 2, n <= monitor.slotCapacity else {
            throw .invalidConfiguration(field: "slots", reason: "must be in 2...\(monitor.slotCapacity) (got \(n))")
        }
        let all = sources.map(\.prefix) + [Self.reservedPrefix]
        for (i, a) in all.enumerated() {
            for b in all[(i + 1)...] where a.hasPrefix(b) || b.hasPrefix(a) {
                throw .prefixClash(a, b)
            }
        }
        let w = workingRadius ?? max(1_500, 2 * sizing.registrationClearance)
        guard w.isFinite, w > sizing.catalogueMarginCeiling else {
            throw .invalidConfiguration(
                field: "workingRadius",
                reason: "must be finite and above the largest margin (\(sizing.catalogueMarginCeiling) m)")
        }
        for (field, latency) in [
            ("sizing.eventLatency", sizing.eventLatency), ("monitor.eventLatency", monitor.eventLatency),
        ]
        where !(latency >= 0 && latency.isFinite) {
            throw .invalidConfiguration(field: field, reason: "must be a finite number of seconds ≥ 0 (got \(latency))")
        }
        guard workingLimit >= n else {
            throw .invalidConfiguration(field: "workingLimit", reason: "must be at least the slot count \(n)")
        }
        self.monitor = monitor
        self.sources = sources
        self.sizing = sizing
        self.policy = policy
        self.slots = n
        self.usableSlots = n
        self.workingRadius = w
        self.workingLimit = workingLimit
        self.allowsHybrid = allowsHybrid
        self.store = store
        self.now = now
        self.soft = SoftEvaluator(policy: policy)
        self.track = TrackFilter(maximumSpeed: sizing.maximumSpeed, glitchAllowance: sizing.glitchAllowance)
    }

    /// The catalogue of the source with this prefix (tier children and live edits included).
    public func catalogue(prefix: String) -> Catalogue? {
        sources.first { $0.prefix == prefix }?.catalogue
    }

    /// What the app can read: mode, guarantee, whether updates are requested.
    public var status: PlannerStatus {
        PlannerStatus(
            mode: mode, guaranteed: (plan?.guaranteed ?? false) && !breachSincePlan,
            locationUpdatesRequested: updatesRequested,
            effectiveFixInterval: effectiveSizing.maximumFixInterval,
            effectiveMaximumSpeed: effectiveSizing.maximumSpeed,
            effectiveEventLatency: effectiveSizing.eventLatency, lastBreach: lastBreach)
    }

    /// The notices since the last call, in order (mode changes, broken conditions).
    public func takeNotices() -> [PlannerNotice] {
        defer { noticeLog = [] }
        return noticeLog
    }

    /// Identifiers (with prefixes) the planner's own engine evaluates now (hybrid mode).
    public var softIdentifiers: Set<String> { Set(soft.identifiers) }

    /// Makes the first plan at the subject's first fix and switches the planner on. Call it
    /// before the monitor processes that fix. Planner-owned regions the monitor still holds
    /// from an earlier run are removed first (use ``restore()`` to continue one instead).
    public func start(at fix: LocationFix) async throws(PlannerError) {
        try checkFix(fix)
        isEnabled = true
        subject = fix.subject
        try await reconcile(keeping: [])
        _ = track.consider(fix, consecutive: false)
        try await replan(at: fix, path: .initial)
    }

    /// The global switch. Off: every slot the planner holds is unregistered, continuous
    /// updates stop and events are ignored. On again: call ``start(at:)``.
    public func setEnabled(_ enabled: Bool) async {
        guard !enabled else { return }
        isEnabled = false
        for id in registered.keys { await monitor.unregister(identifier: id) }
        statistics.removals += registered.count
        registered = [:]
        if replanRegistered { await monitor.unregister(identifier: Self.replanIdentifier) }
        replanRegistered = false
        soft.removeAll()
        await setUpdates(false)
        leaveHybridClock(at: track.latest?.timestamp)
        mode = .slots
        statistics.slotsUsed = 0
        plan = nil
        await save()
    }

    // MARK: Input

    /// Feeds a fix the app received (continuous updates while ``status`` says they are
    /// requested, or any fix the app has). Call it **before** the monitor processes the same
    /// fix. Returns the catalogue events the planner's own engine confirmed (hybrid mode).
    public func observe(_ fix: LocationFix) async throws(PlannerError) -> [PlannerEvent] {
        guard isEnabled else { return [] }
        try checkFix(fix)
        // Already seen with a monitor event (the platform's order: region event, then position).
        let seen = track.latest == fix
        let verdict = track.consider(fix, consecutive: updatesRequested)
        guard verdict != .stale else { return [] }
        subject = subject ?? fix.subject
        if !seen { noteConditions(after: verdict, fix: fix) }
        if let interval = track.receivedInterval { noteInterval(interval, at: fix) }
        if mode == .hybrid, let since = hybridSince {
            statistics.hybridSeconds += max(0, fix.timestamp.timeIntervalSince(since))
            hybridSince = fix.timestamp
        }
        let trusted = verdict == .accepted || verdict == .jumped
        if mode == .slots, trusted, awaitingFix, let t = awaitedExitTime {
            noteLatency(confirmedAt: t, seenAt: fix.timestamp)
        }
        if mode == .slots, trusted, exitOverdue(at: fix) || awaitingFix || slotPlanNeedsRefresh(at: fix) {
            let fresh = pendingFresh
            pendingFresh = []
            try await replan(at: fix, path: .beforeMonitor, fresh: fresh)
        } else if mode == .hybrid {
            try await maintainHybrid(at: fix, trusted: trusted)
        }
        var out: [PlannerEvent] = []
        if mode == .hybrid {
            let events: [TransitionEvent]
            do { events = try soft.process(fix) } catch { throw .invalidFix(error) }
            for e in events { if let p = plannerEvent(e) { out.append(p) } }
            for p in out { try await tierStep(for: p) }
        }
        if mode == .slots, !awaitingFix, updatesRequested { await setUpdates(false) }
        // After every fix: a relaunch continues from exactly here (the engines' runs and the
        // track change with each fix; docs/planner.md, "Restore after relaunch").
        await save()
        return out
    }

    /// Feeds a monitor event. Returns the catalogue events for the app (the re-plan region's
    /// own events are consumed). The re-plan region's exit (initial or not) re-plans; a tier
    /// parent's entry and exit load and unload its children.
    public func handle(_ event: TransitionEvent) async throws(PlannerError) -> [PlannerEvent] {
        guard isEnabled else { return [] }
        // The event's fix, when newer than any: the monitor may see a position before the app
        // does (on a phone it always does); observe(_:) of the same fix later judges nothing
        // again. It measures no fix interval: a late event's fix is older than the present,
        // and the next fix the app receives is measured from the last one it received.
        if track.latest.map({ event.fix.timestamp > $0.timestamp }) ?? true {
            let verdict = track.consider(eventFix: event.fix)
            noteConditions(after: verdict, fix: event.fix)
        }
        if let latest = track.latest {
            let learned = (learnedEventLatency, learnedEventLatencyAt)
            noteLatency(confirmedAt: event.time, seenAt: latest.timestamp)
            // What is learned must survive a relaunch, whatever this event turns out to be.
            if learnedEventLatency != learned.0 || learnedEventLatencyAt != learned.1 { await save() }
        }
        if event.regionID == Self.replanIdentifier {
            if event.kind == .exit, mode == .slots, replanRegistered {
                awaitedExitTime = event.time
                try await replanAfterMonitor()
            }
            return []
        }
        guard let reg = registered[event.regionID] ?? retiredOwner(of: event) else { return [] }
        let out = [PlannerEvent(source: reg.source, identifier: reg.identifier, event: event)]
        try await tierStep(for: out[0])
        await save()
        return out
    }

    /// Re-checks the re-plan region after a wake (Core Location's `requestState` answer):
    /// re-plans when the monitor says the subject is outside it, or when it is missing.
    public func refresh() async throws(PlannerError) {
        guard isEnabled, mode == .slots, let plan, plan.radius.isFinite else { return }
        let held = Set(await monitor.registeredIdentifiers)
        let state = held.contains(Self.replanIdentifier) ? await monitor.state(of: Self.replanIdentifier) : .outside
        for id in registered.keys where !held.contains(id) { registered[id] = nil }
        if state == .outside { try await replanAfterMonitor() }
    }

    // MARK: Helpers

    func plannerEvent(_ e: TransitionEvent) -> PlannerEvent? {
        guard let (source, id) = resolve(e.regionID) else { return nil }
        return PlannerEvent(source: source, identifier: id, event: e)
    }

    func resolve(_ registeredID: String) -> (String, String)? {
        if let r = registered[registeredID] { return (r.source, r.identifier) }
        for s in sources where registeredID.hasPrefix(s.prefix) {
            return (s.prefix, String(registeredID.dropFirst(s.prefix.count)))
        }
        return nil
    }

    func region(for id: String) -> Region? {
        guard let (prefix, key) = resolve(id),
            var r = sources.first(where: { $0.prefix == prefix })?.catalogue.entry(key)?.region
        else { return nil }
        r.identifier = id
        return r
    }

    func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        Geodesic.wgs84.inverse(a, b).distance
    }

    func setUpdates(_ on: Bool) async {
        guard on != updatesRequested else { return }
        updatesRequested = on
        if !on { track.breakSequence() }
        await monitor.setLocationUpdates(on)
    }

    func leaveHybridClock(at time: Date?) {
        if let since = hybridSince, let time { statistics.hybridSeconds += max(0, time.timeIntervalSince(since)) }
        hybridSince = nil
    }
}
