import Foundation
import Geodesy
import Geofencing

/// Monitors what the server's plans say, through any ``SlotMonitor`` (the slots of a phone):
/// the plan's regions, and RegionPlanner's re-plan circle (``RegionPlanner/replanIdentifier``,
/// exit as initial trigger) around the plan's centre with the plan's radius.
///
/// ```swift
/// let follower = ServerPlanFollower(monitor: slots, source: source, store: FileFollowerStore(…))
/// _ = await follower.restore()                          // after a relaunch
/// for fix in fixes {                                    // continuous while `updatesRequested`
///     notify(await follower.observe(fix))               // before the monitor sees the fix
///     for e in try monitor.process(fix) { notify(await follower.handle(e)) }
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
/// **Hybrid mode**: where the server's plan says `guaranteed: false` (a dense area: its
/// `slots − 1` regions cannot cover the re-plan circle), the follower does what ``RegionPlanner``
/// does there: it asks the monitor for continuous updates, fetches a larger *working set*
/// (the same route with ``workingSlots``) and evaluates those regions itself on every fix
/// (``SoftEvaluator``, the planner's engines), returning the events from ``observe(_:)``. It
/// returns to slot mode at the first fix where a slot plan is guaranteed and every region
/// can change hands without losing its state (docs/planner.md, "The server-fed follower").
///
/// **Relaunch**: with a ``FollowerStateStore``, the state is saved after each plan applied and
/// each fix in hybrid mode (the engines' states and pending runs, the track), and ``restore()``
/// in the next launch takes back the regions the monitor still holds and the engines exactly
/// as saved. The next plan then keeps the unchanged regions with their monitor state and
/// removes the stale ones. Without a store, a new follower does not know an earlier launch's
/// regions: they stay in the slots.
public actor ServerPlanFollower<Monitor: SlotMonitor> {
    /// One region registered for the plan.
    typealias Registered = FollowerRegion

    public nonisolated let monitor: Monitor
    public nonisolated let source: ServerPlanSource
    /// Where the follower's state is saved for a relaunch (`nil`: not saved).
    public nonisolated let store: (any FollowerStateStore)?
    /// Registered identifier → (source, plain id, region, hasChildren).
    var registered: [String: Registered] = [:]
    var replanRegistered = false
    var awaitingPlan = true
    /// The plan whose regions the monitor holds (`nil`: none applied in this state).
    var applied: ServerPlan?
    /// What the follower has done.
    public internal(set) var statistics = FollowerStatistics()
    /// The most recent request failures and refused registrations, oldest first (at most
    /// ``keptErrors``; ``statistics`` counts them all).
    public internal(set) var errors: [PlanSourceError] = []
    /// How many failures ``errors`` keeps.
    public static var keptErrors: Int { 20 }
    /// The longest wait between retries of a failed request (seconds).
    public static var maximumRetryDelay: TimeInterval { 300 }
    var retryDelay: TimeInterval = 0
    var retryAt: Date?
    /// Whether the plan in force has monitoring on.
    public internal(set) var monitoring = false

    /// The newest fix that agrees with the track: a plan is fetched only at such a fix.
    var track: TrackFilter

    /// The hysteresis rule of the monitor, which the follower's own engines apply in hybrid mode.
    public nonisolated let policy: HysteresisPolicy
    /// The conditions the follower's hybrid-mode decisions assume (the server's plan assumptions
    /// by default: Core Location, 40 m/s, a fix a second, ±100 m, 250 m glitches).
    public nonisolated let sizing: ReplanSizing
    /// How late the monitor's events may arrive, as plans are asked for (seconds): the later of
    /// the source's and the monitor's, at most 900.
    public nonisolated let eventLatency: TimeInterval
    /// How many slots the working set is asked for in hybrid mode (the server's most, 100).
    public nonisolated let workingSlots: Int
    /// Whether the follower may switch to hybrid mode (`false`: a plan without the guarantee is
    /// followed in slot mode with its smallest radius, as before hybrid mode existed).
    public nonisolated let allowsHybrid: Bool
    /// The working set's requests (the same server and device, ``workingSlots`` slots).
    let workingSource: ServerPlanSource
    /// Slot or hybrid mode.
    public internal(set) var mode: PlannerMode = .slots
    var soft: SoftEvaluator
    var working: WorkingSet?
    var hybridSince: Date?
    /// Where a slot plan was last refused in hybrid mode (not guaranteed, or no handover).
    var probeRefusedAt: Coordinate?
    /// Whether the follower asked the monitor for continuous updates.
    public internal(set) var updatesRequested = false

    /// - Parameters:
    ///   - maximumSpeed, glitchAllowance: the track check of the fix a plan is fetched at
    ///     (defaults: the server's plan assumptions, 40 m/s and 250 m, docs/server.md). A fix
    ///     further off the track waits for the next one, as the planner's probe fix does.
    ///   - policy: the monitor's hysteresis rule (the follower's engines use it in hybrid mode).
    ///   - workingSlots: regions asked for as the hybrid working set (2–100, default 100).
    ///   - allowsHybrid: `false` keeps slot mode where a plan cannot keep the guarantee.
    public init(
        monitor: Monitor, source: ServerPlanSource, store: (any FollowerStateStore)? = nil,
        maximumSpeed: Double = 40, glitchAllowance: Double = 250, policy: HysteresisPolicy = .coreLocation,
        workingSlots: Int = 100, allowsHybrid: Bool = true
    ) {
        self.monitor = monitor
        self.source = source
        self.store = store
        self.track = TrackFilter(maximumSpeed: maximumSpeed, glitchAllowance: glitchAllowance)
        self.policy = policy
        // Plans are sized for the later of the source's and the monitor's event latency: the
        // server's circle and the follower's own hybrid-mode checks alike.
        let latency = max(source.eventLatency, ReplanSizing.boundedEventLatency(monitor.eventLatency))
        self.eventLatency = latency
        self.sizing = ReplanSizing(
            policy: policy, largestRegionSize: Region.maximumRadius, maximumSpeed: maximumSpeed,
            maximumFixInterval: source.fixInterval ?? 1, maximumAccuracy: 100, glitchAllowance: glitchAllowance
        ).adapted(toEventLatency: latency)
        self.workingSlots = min(100, max(2, workingSlots))
        self.allowsHybrid = allowsHybrid
        self.soft = SoftEvaluator(policy: policy)
        self.workingSource = ServerPlanSource(
            server: source.server, key: source.key, device: source.device, slots: self.workingSlots,
            fixInterval: source.fixInterval, eventLatency: latency, transport: source.transport)
    }

    /// Identifiers registered for the plan (with their prefixes), without the re-plan circle.
    public var registeredIdentifiers: Set<String> { Set(registered.keys) }

    /// Identifiers (with their prefixes) the follower's own engines evaluate now (hybrid mode).
    public var softIdentifiers: Set<String> { Set(soft.identifiers) }

    /// Feeds a fix the app received, **before** the monitor processes it: fetches a plan when
    /// one is due (first fix, re-plan, tier change) or revalidates the one held after its
    /// max-age, and applies it. In hybrid mode it also keeps the working set around the
    /// subject, tries to return to slot mode, and returns the events the follower's own
    /// engines confirmed at this fix (every fix counts there, glitches included, as in the
    /// whole-catalogue engine).
    @discardableResult
    public func observe(_ fix: LocationFix) async -> [PlannerEvent] {
        let verdict = track.consider(fix, consecutive: false)
        guard verdict != .stale else { return [] }
        // A plan is made for where the subject is: never at a fix far off the track.
        let trusted = verdict != .suspect
        if !trusted { statistics.glitchesRejected += 1 }
        tickHybridClock(at: fix.timestamp)
        if mode == .slots, trusted { await followSlots(at: fix) }
        guard mode == .hybrid else { return [] }
        if trusted { await maintainHybrid(at: fix) }
        guard mode == .hybrid else { return [] }
        var out: [PlannerEvent] = []
        // The fix was checked by the monitor's validation path already; an engine error here
        // would be a fix no engine accepts, so no region can change on it.
        for e in (try? soft.process(fix)) ?? [] {
            guard let w = working?.regions[e.regionID] else { continue }
            if w.hasChildren, e.kind != .dwell { awaitingPlan = true }
            out.append(PlannerEvent(source: w.source, identifier: w.id, event: e))
        }
        // After every fix in hybrid mode: a relaunch continues from exactly here.
        await saveState()
        return out
    }

    /// Slot mode: fetches or revalidates the plan when due, and applies it (hybrid mode when it
    /// is not guaranteed).
    func followSlots(at fix: LocationFix) async {
        let expired = await source.isExpired(at: fix.timestamp)
        // Switched off, a plan is asked for where the phone is (the answer does not depend
        // on the point, so it is a 304 while the switch stays off).
        guard awaitingPlan || expired else { return }
        let fresh = awaitingPlan || !monitoring
        guard let result = await request(fresh ? .fetch : .revalidate, from: source, at: fix) else { return }
        awaitingPlan = false
        guard case .changed(let plan) = result else {
            await setUpdates(false)
            return
        }
        if allowsHybrid, plan.monitoringEnabled, !plan.guaranteed {
            await enterHybrid(at: fix)
        } else {
            await apply(plan)
            await setUpdates(false)
        }
    }

    enum RequestKind { case fetch, revalidate }

    /// One request with the back-off on failures (on the fixes' clock); `nil` when it failed or
    /// waits for its retry time.
    func request(
        _ kind: RequestKind, from source: ServerPlanSource, at fix: LocationFix
    ) async -> ServerPlanSource.Result? {
        if let retryAt, fix.timestamp < retryAt { return nil }
        do {
            let result =
                switch kind {
                case .fetch: try await source.fetch(at: fix.coordinate, now: fix.timestamp, eventLatency: eventLatency)
                case .revalidate: try await source.revalidate(now: fix.timestamp)
                }
            retryDelay = 0
            retryAt = nil
            return result
        } catch {
            note(error)
            retryDelay = min(Self.maximumRetryDelay, max(1, retryDelay * 2))
            retryAt = fix.timestamp.addingTimeInterval(retryDelay)
            statistics.failedRequests += 1
            return nil
        }
    }

    /// Feeds a monitor event. Returns the plan region's event (none for the re-plan circle).
    /// The circle's exit, and a tier parent's entry or exit, make the next fix fetch a plan
    /// (continuous updates are asked for until it does).
    public func handle(_ event: TransitionEvent) async -> [PlannerEvent] {
        if event.regionID == RegionPlanner<Monitor>.replanIdentifier {
            if event.kind == .exit, replanRegistered, mode == .slots { await awaitPlan() }
            return []
        }
        guard let r = registered[event.regionID] else { return [] }
        if r.hasChildren, event.kind != .dwell { await awaitPlan() }
        return [PlannerEvent(source: r.source, identifier: r.id, event: event)]
    }

    func awaitPlan() async {
        awaitingPlan = true
        await setUpdates(true)
        await saveState()
    }

    func setUpdates(_ on: Bool) async {
        guard on != updatesRequested else { return }
        updatesRequested = on
        await monitor.setLocationUpdates(on)
    }

    func note(_ error: PlanSourceError) {
        errors.append(error)
        if errors.count > Self.keptErrors { errors.removeFirst(errors.count - Self.keptErrors) }
    }

    /// Registers what `plan` says; regions that stay keep their monitor state. Removals first,
    /// so at most the slots are ever taken. Two regions that would register under one
    /// identifier (`acme.s1` without a source, `s1` of source `acme`): the first is kept, the
    /// other noted in ``errors``.
    /// `quiet`: identifiers registered without their initial events (decided already).
    func apply(_ plan: ServerPlan, quiet: Set<String> = []) async {
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
                try await monitor.register(quiet.contains(id) ? SoftEvaluator.quiet(w.region) : w.region)
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
        applied = plan
        await saveState()
    }

    /// What `plan` registers, by prefixed identifier, within the slots (the re-plan circle
    /// takes one). Two regions that would register under one identifier: the first is kept,
    /// the clash noted when `noting`.
    func registrations(for plan: ServerPlan, noting: Bool = false) -> [String: Registered] {
        entries(of: plan, count: max(0, monitor.slotCapacity - 1), noting: noting)
    }

    /// The first `count` regions of `plan` by prefixed identifier (see ``registrations(for:noting:)``).
    func entries(of plan: ServerPlan, count: Int, noting: Bool = false) -> [String: Registered] {
        var wanted: [String: Registered] = [:]
        for e in plan.regions.prefix(count) {
            var r = e.region
            r.identifier = e.region.prefixedIdentifier
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
}

/// One region of a plan as the follower holds it: its source (`""` for none), plain id, the
/// region under its prefixed identifier, and whether it is a tier parent.
typealias FollowerRegion = (source: String, id: String, region: Region, hasChildren: Bool)

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
    /// Switches to hybrid mode, and the fix time spent in it (seconds).
    public var hybridEntries = 0
    public var hybridSeconds: Double = 0
    /// Working sets fetched, and regions loaded into the follower's engines from them.
    public var workingSetFetches = 0
    public var softLoads = 0
    /// Slot plans asked for in hybrid mode to return to slot mode.
    public var probes = 0

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
