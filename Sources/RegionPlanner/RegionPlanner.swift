import Foundation
import Geodesy
import Geofencing

/// Serves catalogues of any size through a monitor with a few slots: it keeps the regions
/// nearest the subject registered and one *re-plan region* around the subject whose exit
/// triggers the next plan, sized so that no catalogue region can be entered before that exit
/// is reported (docs/planner.md: the rule, its proof sketch and its limits).
///
/// ```swift
/// let monitor = EngineSlotMonitor(subject: "phone", policy: .coreLocation)   // 20 slots
/// let planner = try RegionPlanner(
///     monitor: monitor,
///     sources: [PlannerSource(prefix: "acme.", catalogue: try Catalogue(shops))],
///     sizing: ReplanSizing(policy: .coreLocation, largestRegionSize: 500,
///                          maximumSpeed: 40, maximumFixInterval: 1))
/// try await planner.start(at: here)
/// // wherever the monitor's events arrive:
/// for event in try await planner.handle(monitorEvent) { notify(event.identifier, event.kind) }
/// ```
///
/// - **Plan**: the `slots − 1` nearest entries over all sources by signed boundary distance
///   (regions the monitor reports the subject inside are never dropped), plus the re-plan
///   circle. Regions that stay keep their monitor state (they are not re-registered).
///   Removals happen before additions, so the slot count is never exceeded.
/// - **Re-plan** on the exit of the re-plan region, and — when fixes are available —
///   from ``update(location:)`` as soon as the next fix could come too close to an
///   unregistered region.
/// - **Tiers**: entering an entry with `hasChildren` loads its children (source loader,
///   cached for `cacheExpiry` on the injected clock); leaving it unloads them and their
///   descendants. Tier entries (parents and children) are registered with
///   `initialTrigger: .enter`, so a subject already inside one when it is registered still
///   hears about it (and its children load).
/// - **Switch**: ``setEnabled(_:)`` `false` unregisters every slot the planner holds.
///
/// Cost: one re-plan is a k-nearest query per source (≈ 10–100 µs on a million regions)
/// plus the monitor calls for the regions that change. One subject per planner.
/// Not here: the monitor's own availability and authorisation (that is `RegionMonitoring`).
public final class RegionPlanner<Monitor: SlotMonitor> {
    /// Identifier prefix the planner keeps for its own regions (the re-plan circle).
    public static var reservedPrefix: String { "_planner." }
    /// Identifier of the re-plan region.
    public static var replanIdentifier: String { reservedPrefix + "replan" }

    /// A plan in force.
    public struct Plan: Sendable, Hashable {
        /// Where the plan was made.
        public var center: Coordinate
        /// Re-plan circle radius (metres); `.infinity` when every entry is registered.
        public var radius: Double
        /// Signed distance from `center` to the nearest unregistered entry (metres).
        public var nearestUnregistered: Double
        /// Whether the plan keeps the guarantee (docs/planner.md): exit-driven, a radius exists;
        /// fix-driven (after ``RegionPlanner/update(location:)``), the nearest unregistered
        /// entry is at least the registration clearance away.
        public var guaranteed: Bool
        /// Registered catalogue identifiers, with their source prefixes.
        public var registered: Set<String>
    }

    struct Registration { var source: Int; var identifier: String }

    struct CachedChildren { var children: [CatalogueEntry]; var loadedAt: Date }

    public let monitor: Monitor
    public let sizing: ReplanSizing
    /// Slots the planner may use (defaults to the monitor's capacity).
    public let slots: Int
    var sources: [PlannerSource]
    let now: () -> Date
    var registered: [String: Registration] = [:]
    var replanRegistered = false
    /// Children loaded per (source, parent identifier).
    var loadedChildren: [Int: [String: [String]]] = [:]
    var cache: [Int: [String: CachedChildren]] = [:]

    /// The plan in force, `nil` before ``start(at:)`` or while switched off.
    public private(set) var plan: Plan?
    /// Whether the planner is running.
    public private(set) var isEnabled = false
    /// Work counters.
    public internal(set) var statistics = PlannerStatistics()
    /// Tier loader failures so far (the parent's children stay unloaded).
    public internal(set) var loaderErrors: [PlannerError] = []
    var lastPosition: Coordinate?
    /// Set once ``update(location:)`` has been called: re-plans are then driven by fixes too.
    var fixesAvailable = false

    /// - Parameters:
    ///   - slots: slots to use, at least 2 (defaults to `monitor.slotCapacity`).
    ///   - now: the clock for tier cache expiry.
    /// - Throws: ``PlannerError/prefixClash(_:_:)`` or ``PlannerError/invalidConfiguration(field:reason:)``.
    public init(monitor: Monitor, sources: [PlannerSource], sizing: ReplanSizing,
                slots: Int? = nil, now: @escaping () -> Date = Date.init) throws(PlannerError) {
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
        self.monitor = monitor
        self.sources = sources
        self.sizing = sizing
        self.slots = n
        self.now = now
    }

    /// The catalogue of the source with this prefix (tier children currently loaded included).
    public func catalogue(prefix: String) -> Catalogue? {
        sources.first { $0.prefix == prefix }?.catalogue
    }

    /// Makes the first plan at the subject's position and switches the planner on.
    /// - Parameter fixDriven: whether the caller will pass every fix to
    ///   ``update(location:)`` (the first plan's guarantee is then judged by the fix-driven rule;
    ///   the first `update` call sets this too).
    public func start(at position: Coordinate, fixDriven: Bool = false) async throws(PlannerError) {
        isEnabled = true
        fixesAvailable = fixesAvailable || fixDriven
        lastPosition = position
        try await replan(at: position)
    }

    /// The global switch. Off: every slot the planner holds is unregistered and events are
    /// ignored. On again: call ``start(at:)``.
    public func setEnabled(_ enabled: Bool) async {
        guard !enabled else { return }
        isEnabled = false
        for id in registered.keys { await monitor.unregister(identifier: id) }
        statistics.removals += registered.count
        registered = [:]
        if replanRegistered { await monitor.unregister(identifier: Self.replanIdentifier) }
        replanRegistered = false
        statistics.slotsUsed = 0
        plan = nil
    }

    /// Feeds a monitor event. Returns the catalogue events for the app (the re-plan region's
    /// own events are consumed). The exit of the re-plan region re-plans; the entry and exit
    /// of a tier parent load and unload its children.
    public func handle(_ event: TransitionEvent) async throws(PlannerError) -> [PlannerEvent] {
        guard isEnabled else { return [] }
        if event.regionID == Self.replanIdentifier {
            if event.kind == .exit { try await replan(at: event.fix.coordinate) }
            return []
        }
        guard let (s, id) = resolve(event.regionID) else { return [] }
        let out = [PlannerEvent(source: sources[s].prefix, identifier: id, event: event)]
        switch event.kind {
        case .enter:
            if let entry = sources[s].catalogue.entry(id), entry.hasChildren {
                if await loadChildren(of: entry, source: s) {
                    try await replan(at: event.fix.coordinate)
                }
            }
        case .exit:
            if await unloadChildren(of: id, source: s) {
                try await replan(at: event.fix.coordinate)
            }
        case .dwell:
            break
        }
        return out
    }

    /// Tells the planner where the subject is, when fixes are available; call it before the
    /// monitor processes the fix. Re-plans when that fix could be the last one before an
    /// unregistered region gets within reach of a monitor decision.
    public func update(location: Coordinate) async throws(PlannerError) {
        guard isEnabled else { return }
        fixesAvailable = true
        if let last = lastPosition { statistics.distanceMeters += distance(last, location) }
        lastPosition = location
        guard let plan else { return }
        let reach = plan.nearestUnregistered - distance(plan.center, location)
        if reach < sizing.registrationClearance {
            try await replan(at: location)
        }
    }

    // MARK: Planning

    func resolve(_ registeredID: String) -> (Int, String)? {
        if let r = registered[registeredID] { return (r.source, r.identifier) }
        for (i, s) in sources.enumerated() where registeredID.hasPrefix(s.prefix) {
            return (i, String(registeredID.dropFirst(s.prefix.count)))
        }
        return nil
    }

    func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        Geodesic.wgs84.inverse(a, b).distance
    }

    /// Re-plans at `position`: see the type's documentation.
    func replan(at position: Coordinate) async throws(PlannerError) {
        statistics.replans += 1
        if let last = plan?.center, lastPosition == nil || lastPosition == last {
            statistics.distanceMeters += distance(last, position)
            lastPosition = position
        }
        let k = slots - 1
        // Regions the subject is inside stay registered: their exit must not be lost.
        var pinned = Set<String>()
        for id in registered.keys where await monitor.state(of: id) == .inside { pinned.insert(id) }
        // Nearest candidates over all sources.
        var candidates: [(id: String, source: Int, entry: CatalogueEntry, distance: Double)] = []
        for (i, s) in sources.enumerated() {
            for n in s.catalogue.nearest(k + 1, to: position) {
                candidates.append((s.prefix + n.entry.identifier, i, n.entry, n.distance))
            }
        }
        candidates.sort { $0.distance < $1.distance }
        var keep = pinned
        var nearestUnregistered = Double.infinity
        for c in candidates where !keep.contains(c.id) {
            if keep.count < k { keep.insert(c.id) } else { nearestUnregistered = c.distance; break }
        }
        // Remove first, so the slot count never exceeds the limit.
        for id in registered.keys where !keep.contains(id) {
            await monitor.unregister(identifier: id)
            registered[id] = nil
            statistics.removals += 1
        }
        if replanRegistered {
            await monitor.unregister(identifier: Self.replanIdentifier)
            replanRegistered = false
        }
        for c in candidates where keep.contains(c.id) && registered[c.id] == nil {
            var region = c.entry.region
            region.identifier = c.id
            if c.entry.parent != nil || c.entry.hasChildren { region.initialTrigger.insert(.enter) }
            do { try await monitor.register(region) } catch {
                throw .registrationFailed(identifier: c.id, reason: "\(error)")
            }
            registered[c.id] = Registration(source: c.source, identifier: c.entry.identifier)
            statistics.registrations += 1
        }
        let radius = sizing.radius(nearestUnregistered: nearestUnregistered)
        let r = radius ?? sizing.minimumRadius
        // Exit-driven, the radius must exist; fix-driven, the clearance alone suffices.
        let guaranteed = radius != nil || (fixesAvailable && nearestUnregistered >= sizing.registrationClearance)
        if !guaranteed { statistics.replansWithoutGuarantee += 1 }
        if r.isFinite {
            let circle = Region.circle(identifier: Self.replanIdentifier, center: position, radius: r,
                                       notifyOnEntry: false, notifyOnExit: true, initialTrigger: .exit)
            do { try await monitor.register(circle) } catch {
                throw .registrationFailed(identifier: Self.replanIdentifier, reason: "\(error)")
            }
            replanRegistered = true
        }
        statistics.slotsUsed = registered.count + (replanRegistered ? 1 : 0)
        statistics.maximumSlotsUsed = max(statistics.maximumSlotsUsed, statistics.slotsUsed)
        plan = Plan(center: position, radius: r, nearestUnregistered: nearestUnregistered,
                    guaranteed: guaranteed, registered: Set(registered.keys))
    }
}
