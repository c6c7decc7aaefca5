import Foundation
import Geodesy
import Geofencing

/// Monitors what the server's plans say, through any ``SlotMonitor`` (the slots of a phone):
/// the plan's regions, and RegionPlanner's re-plan circle (``RegionPlanner/replanIdentifier``,
/// exit as initial trigger) around the plan's centre with the plan's radius.
///
/// ```swift
/// let follower = ServerPlanFollower(monitor: slots, source: source)
/// for fix in fixes {
///     try await follower.observe(fix)                 // before the monitor sees the fix
///     for e in try monitor.process(fix) { notify(try await follower.handle(e)) }
/// }
/// ```
///
/// The server chooses with RegionPlanner's rule (``SlotFill``, ``ReplanSizing``), so the phone
/// keeps the planner's guarantee (docs/planner.md) without holding the catalogue: a new plan is
/// asked for when the re-plan circle's exit is reported or a tier parent (`hasChildren`) is
/// entered or left, always **at the next fix** and before the monitor processes it (the probe
/// fix of the planner's slot mode); when the plan's max-age runs out, the plan held is
/// revalidated (a `304` changes nothing). A plan with monitoring switched off unregisters
/// everything; the phone keeps asking at each max-age, and monitors again when it is on.
///
/// Registered identifiers carry the region's source as a prefix (`source + "." + id`, RegionPlanner's
/// per-source prefix), so regions of several businesses never clash; events come back as
/// ``PlannerEvent``s with the source (`""` for none) and the plain id. Tier children are
/// registered with an initial `enter`, as the planner registers them, so a child registered
/// while the subject is already inside it is reported.
///
/// A request that fails keeps the plan in force and is retried after a back-off on the fixes'
/// clock (1 s, doubling up to ``maximumRetryDelay``), so an unreachable server costs a phone a
/// few requests, not one per fix; the last ``keptErrors`` failures are kept in ``errors``.
///
/// **Glitches**: a fix far off the track (``TrackFilter``'s rule: further than
/// `maximumSpeed × Δt + glitchAllowance` from the last accepted fix, and not continuing it)
/// is set aside; the plan is fetched at the next fix that agrees with the track.
///
/// **Relaunch**: with a ``FollowerStateStore``, each plan applied is saved, and ``restore()``
/// in the next launch takes back the regions the monitor still holds for it. The next plan
/// then keeps the unchanged ones with their monitor state and removes the stale ones. Without
/// a store, a new follower does not know an earlier launch's regions: they stay in the slots.
public actor ServerPlanFollower<Monitor: SlotMonitor> {
    /// One region registered for the plan.
    typealias Registered = (source: String, id: String, region: Region, hasChildren: Bool)

    public nonisolated let monitor: Monitor
    public nonisolated let source: ServerPlanSource
    /// Where the follower's state is saved for a relaunch (`nil`: not saved).
    public nonisolated let store: (any FollowerStateStore)?
    /// Registered identifier → (source, plain id, region, hasChildren).
    private var registered: [String: Registered] = [:]
    private var replanRegistered = false
    private var awaitingPlan = true
    /// What the follower has done.
    public private(set) var statistics = FollowerStatistics()
    /// The most recent request failures and refused registrations, oldest first (at most
    /// ``keptErrors``; ``statistics`` counts them all).
    public private(set) var errors: [PlanSourceError] = []
    /// How many failures ``errors`` keeps.
    public static var keptErrors: Int { 20 }
    /// The longest wait between retries of a failed request (seconds).
    public static var maximumRetryDelay: TimeInterval { 300 }
    private var retryDelay: TimeInterval = 0
    private var retryAt: Date?
    /// Whether the plan in force has monitoring on.
    public private(set) var monitoring = false

    /// The newest fix that agrees with the track: a plan is fetched only at such a fix.
    private var track: TrackFilter

    /// - Parameters:
    ///   - maximumSpeed, glitchAllowance: the track check of the fix a plan is fetched at
    ///     (defaults: the server's plan assumptions, 40 m/s and 250 m, docs/server.md). A fix
    ///     further off the track waits for the next one, as the planner's probe fix does.
    public init(
        monitor: Monitor, source: ServerPlanSource, store: (any FollowerStateStore)? = nil,
        maximumSpeed: Double = 40, glitchAllowance: Double = 250
    ) {
        self.monitor = monitor
        self.source = source
        self.store = store
        self.track = TrackFilter(maximumSpeed: maximumSpeed, glitchAllowance: glitchAllowance)
    }

    /// Continues a follower of an earlier launch from its ``store``: takes back the plan's
    /// regions the monitor still holds (their monitor state kept), unregisters those of its
    /// regions the monitor holds but the saved plan does not explain, and asks for a plan at
    /// the next fix. Returns `false` (and does nothing) when nothing was saved or the saved
    /// state cannot be read (noted in ``errors``).
    public func restore() async -> Bool {
        let loaded: FollowerState?
        do { loaded = try await store?.load() } catch {
            note(.storage("cannot read the saved state: \(error)"))
            return false
        }
        guard let state = loaded else { return false }
        let plan: ServerPlan
        do { plan = try ServerPlan(json: state.plan) } catch {
            note(.storage("the saved plan is not a plan: \(error)"))
            return false
        }
        let held = Set(await monitor.registeredIdentifiers)
        let wanted = registrations(for: plan)
        for id in state.registered where held.contains(id) {
            if let w = wanted[id] { registered[id] = w } else { await monitor.unregister(identifier: id) }
        }
        replanRegistered = state.replanRegistered && held.contains(RegionPlanner<Monitor>.replanIdentifier)
        monitoring = plan.monitoringEnabled
        awaitingPlan = true
        return true
    }

    /// Identifiers registered for the plan (with their prefixes), without the re-plan circle.
    public var registeredIdentifiers: Set<String> { Set(registered.keys) }

    /// Feeds a fix the app received, **before** the monitor processes it: fetches a plan when
    /// one is due (first fix, re-plan, tier change) or revalidates the one held after its
    /// max-age, and applies it.
    public func observe(_ fix: LocationFix) async {
        let verdict = track.consider(fix, consecutive: false)
        guard verdict != .stale else { return }
        // A plan is made for where the subject is: never at a fix far off the track.
        if verdict == .suspect {
            statistics.glitchesRejected += 1
            return
        }
        if let retryAt, fix.timestamp < retryAt { return }
        let result: ServerPlanSource.Result
        let expired = await source.isExpired(at: fix.timestamp)
        do {
            // Switched off, a plan is asked for where the phone is (the answer does not depend
            // on the point, so it is a 304 while the switch stays off).
            if awaitingPlan || (!monitoring && expired) {
                result = try await source.fetch(at: fix.coordinate, now: fix.timestamp)
            } else if expired {
                result = try await source.revalidate(now: fix.timestamp)
            } else {
                return
            }
        } catch {
            note(error)
            retryDelay = min(Self.maximumRetryDelay, max(1, retryDelay * 2))
            retryAt = fix.timestamp.addingTimeInterval(retryDelay)
            statistics.failedRequests += 1
            return
        }
        retryDelay = 0
        retryAt = nil
        awaitingPlan = false
        guard case .changed(let plan) = result else { return }
        await apply(plan)
    }

    /// Feeds a monitor event. Returns the plan region's event (none for the re-plan circle).
    /// The circle's exit, and a tier parent's entry or exit, make the next fix fetch a plan.
    public func handle(_ event: TransitionEvent) -> [PlannerEvent] {
        if event.regionID == RegionPlanner<Monitor>.replanIdentifier {
            if event.kind == .exit, replanRegistered { awaitingPlan = true }
            return []
        }
        guard let r = registered[event.regionID] else { return [] }
        if r.hasChildren, event.kind != .dwell { awaitingPlan = true }
        return [PlannerEvent(source: r.source, identifier: r.id, event: event)]
    }

    private func note(_ error: PlanSourceError) {
        errors.append(error)
        if errors.count > Self.keptErrors { errors.removeFirst(errors.count - Self.keptErrors) }
    }

    /// Registers what `plan` says; regions that stay keep their monitor state. Removals first,
    /// so at most the slots are ever taken. Two regions that would register under one
    /// identifier (`acme.s1` without a source, `s1` of source `acme`): the first is kept, the
    /// other noted in ``errors``.
    func apply(_ plan: ServerPlan) async {
        statistics.plansApplied += 1
        monitoring = plan.monitoringEnabled
        let wanted = registrations(for: plan, noting: true)
        for (id, old) in registered where wanted[id]?.region != old.region {
            await monitor.unregister(identifier: id)
            registered[id] = nil
            statistics.removals += 1
        }
        if replanRegistered {
            await monitor.unregister(identifier: RegionPlanner<Monitor>.replanIdentifier)
            replanRegistered = false
        }
        for (id, w) in wanted.sorted(by: { $0.key < $1.key }) where registered[id] == nil {
            do {
                try await monitor.register(w.region)
                registered[id] = w
                statistics.registrations += 1
            } catch {
                note(.malformed("region \(id) refused by the monitor: \(error)"))
            }
        }
        if plan.monitoringEnabled, let center = plan.center, let radius = plan.replanRadius, radius.isFinite {
            var circle = Region.circle(
                identifier: RegionPlanner<Monitor>.replanIdentifier, center: center, radius: radius,
                notifyOnEntry: false, notifyOnExit: true)
            circle.initialTrigger = [.exit]
            do {
                try await monitor.register(circle)
                replanRegistered = true
            } catch {
                note(.malformed("re-plan circle refused by the monitor: \(error)"))
            }
        }
        await save(plan)
    }

    /// What `plan` registers, by prefixed identifier, within the slots (the re-plan circle
    /// takes one). Two regions that would register under one identifier: the first is kept,
    /// the clash noted when `noting`.
    func registrations(for plan: ServerPlan, noting: Bool = false) -> [String: Registered] {
        var wanted: [String: Registered] = [:]
        for e in plan.regions.prefix(max(0, monitor.slotCapacity - 1)) {
            let prefix = e.region.source.map { $0 + "." } ?? ""
            var r = e.region
            r.identifier = prefix + e.region.identifier
            // A child registered after its parent's entry may already be inside: as the planner
            // does for tier children. (A parent needs no initial entry: the server's plan at a
            // point inside it already holds its children.)
            if r.parent != nil { r.initialTrigger.insert(.enter) }
            guard wanted[r.identifier] == nil, r.identifier != RegionPlanner<Monitor>.replanIdentifier else {
                if noting {
                    note(.malformed("two regions of the plan register as \"\(r.identifier)\"; the first is kept"))
                }
                continue
            }
            wanted[r.identifier] = (e.region.source ?? "", e.region.identifier, r, e.hasChildren)
        }
        return wanted
    }

    /// Saves the plan applied and what is registered for it (a failure is noted in ``errors``).
    private func save(_ plan: ServerPlan) async {
        guard let store else { return }
        let state = FollowerState(
            plan: plan.document, registered: registered.keys.sorted(), replanRegistered: replanRegistered)
        do { try await store.save(state) } catch { note(.storage("cannot save the state: \(error)")) }
    }
}

/// What a ``ServerPlanFollower`` has done: plans applied, and the churn they caused.
public struct FollowerStatistics: Sendable, Hashable {
    /// Plans applied (each `200`).
    public var plansApplied = 0
    /// Regions registered.
    public var registrations = 0
    /// Regions unregistered.
    public var removals = 0
    /// Plan requests that failed (the plan in force was kept).
    public var failedRequests = 0
    /// Fixes set aside as far off the track (no plan fetched there).
    public var glitchesRejected = 0

    public init(
        plansApplied: Int = 0, registrations: Int = 0, removals: Int = 0, failedRequests: Int = 0,
        glitchesRejected: Int = 0
    ) {
        self.plansApplied = plansApplied
        self.registrations = registrations
        self.removals = removals
        self.failedRequests = failedRequests
        self.glitchesRejected = glitchesRejected
    }
}
