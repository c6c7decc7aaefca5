import Foundation
import Geofencing

/// The planner's own geofencing for hybrid mode: the nearby catalogue in `Engine`s that see
/// every fix the app receives, so their events are the whole-catalogue engine's events.
///
/// A region that joins must start in the state the whole-catalogue engine has for it. A region
/// nobody evaluated yet is, for that engine, `outside` with nothing pending (no fix came near
/// it; docs/planner.md). An `Engine` cannot be told a state, so regions join in a **cohort**:
/// a new engine that first processes the fix the subject sent *before* the cohort's first real
/// fix (the *priming fix*, which lies outside them, its events discarded) and from then on
/// every fix. The priming fix also gives `crossedAt` its true previous fix. Regions whose state
/// is known from the monitor join an existing cohort unprimed instead: their first fix decides
/// them silently, on the side the monitor had (the caller checks that it does).
///
/// Cost per fix: one `Engine.process` per live cohort (a handful; a cohort ends when its last
/// region is dropped).
struct SoftEvaluator: Sendable {
    private struct Cohort: Sendable {
        var engine: Engine
        var ids: Set<String> = []
        /// The regions' part of the engine's last snapshot, reused by ``saved()`` while the
        /// cohort's regions stand (the planner saves its state after every fix in hybrid mode).
        var snapshotCache = SnapshotCache()
    }

    let policy: HysteresisPolicy
    private var cohorts: [Int: Cohort] = [:]
    private var owner: [String: Int] = [:]
    private var nextCohort = 0

    init(policy: HysteresisPolicy) { self.policy = policy }

    var count: Int { owner.count }
    var identifiers: Dictionary<String, Int>.Keys { owner.keys }
    var cohortCount: Int { cohorts.count }
    func contains(_ id: String) -> Bool { owner[id] != nil }

    /// Adds regions in a new cohort primed with `prime` (nil: unprimed, their first fix decides).
    mutating func addPrimed(_ regions: [Region], prime: LocationFix?) throws(GeofencingError) {
        guard !regions.isEmpty else { return }
        var engine = Engine(policy: policy)
        // A primed region was decided long ago for the whole-catalogue engine: no initial event.
        for r in regions { try engine.add(prime == nil ? r : Self.quiet(r)) }
        if let prime { _ = try engine.process(prime) }
        let c = nextCohort
        nextCohort += 1
        cohorts[c] = Cohort(engine: engine, ids: Set(regions.map(\.identifier)))
        for r in regions { owner[r.identifier] = c }
    }

    /// Adds regions whose first fix is the next one processed (unknown until it decides them),
    /// in the newest cohort. `initialEvents`: keep the regions' initial triggers (a region new
    /// to the catalogue); otherwise they are dropped (a region handed over from the monitor).
    mutating func addUnprimed(_ regions: [Region], initialEvents: Bool) throws(GeofencingError) {
        guard !regions.isEmpty else { return }
        let regions = initialEvents ? regions : regions.map(Self.quiet)
        guard let c = cohorts.keys.max() else {
            try addPrimed(regions, prime: nil)
            return
        }
        for r in regions {
            if let old = owner[r.identifier], old != c { remove(r.identifier) }
            try cohorts[c]!.engine.add(r)
            cohorts[c]!.ids.insert(r.identifier)
            owner[r.identifier] = c
        }
    }

    static func quiet(_ r: Region) -> Region {
        var q = r
        q.initialTrigger = []
        return q
    }

    mutating func remove(_ id: String) {
        guard let c = owner.removeValue(forKey: id) else { return }
        _ = cohorts[c]!.engine.remove(identifier: id)
        cohorts[c]!.ids.remove(id)
        if cohorts[c]!.ids.isEmpty { cohorts[c] = nil }
    }

    mutating func removeAll() {
        cohorts = [:]
        owner = [:]
    }

    func region(_ id: String) -> Region? {
        owner[id].flatMap { cohorts[$0]?.engine.region(identifier: id) }
    }

    func state(of id: String, subject: String) -> RegionState {
        guard let c = owner[id], let cohort = cohorts[c] else { return .unknown }
        return cohort.engine.state(of: subject, in: id)
    }

    /// Whether a transition of `id` is pending for `subject` (seen past the margin, not confirmed).
    func isPending(_ id: String, subject: String) -> Bool {
        guard let c = owner[id], let cohort = cohorts[c] else { return false }
        return cohort.engine.pendingRegions(of: subject).contains(id)
    }

    /// Every region's state for `subject` (for the planner's saved state).
    func states(subject: String) -> [String: RegionState] {
        var out: [String: RegionState] = [:]
        for (id, c) in owner { out[id] = cohorts[c]?.engine.state(of: subject, in: id) ?? .unknown }
        return out
    }

    /// Every cohort with its engine's per-subject state, for the planner's saved state:
    /// ``restore(_:region:)`` rebuilds the same engines, pending runs included.
    mutating func saved() -> SoftEvaluatorState {
        var out: [SoftCohortState] = []
        for c in cohorts.keys.sorted() {
            var triggers: [String: UInt8] = [:]
            for id in cohorts[c]!.ids {
                triggers[id] = cohorts[c]!.engine.region(identifier: id)?.initialTrigger.rawValue ?? 0
            }
            let engine = cohorts[c]!.engine.subjectSnapshot(cache: &cohorts[c]!.snapshotCache)
            out.append(SoftCohortState(key: c, triggers: triggers, engine: engine))
        }
        return SoftEvaluatorState(cohorts: out, nextCohort: nextCohort)
    }

    /// Rebuilds the cohorts of ``saved()``, each region from `region` (the catalogue's, under its
    /// prefixed identifier) with its saved initial trigger. Throws, leaving the evaluator empty,
    /// when a region is gone or differs from the one saved (the engine snapshot's fingerprint).
    mutating func restore(
        _ state: SoftEvaluatorState, region: (String) -> Region?
    ) throws(EngineSnapshotError) {
        removeAll()
        do throws(EngineSnapshotError) {
            for saved in state.cohorts {
                var engine = Engine(policy: policy)
                for (id, trigger) in saved.triggers.sorted(by: { $0.key < $1.key }) {
                    guard var r = region(id) else { throw EngineSnapshotError.regionsDiffer }
                    r.initialTrigger = InitialTrigger(rawValue: trigger)
                    do { try engine.add(r) } catch { throw EngineSnapshotError.regionsDiffer }
                }
                try engine.restoreSubjects(from: saved.engine)
                cohorts[saved.key] = Cohort(engine: engine, ids: Set(saved.triggers.keys))
                for id in saved.triggers.keys { owner[id] = saved.key }
            }
            nextCohort = max(state.nextCohort, (cohorts.keys.max() ?? -1) + 1)
        } catch {
            removeAll()
            throw error
        }
    }

    /// Processes a fix in every cohort; the events in time order (exits, entries, dwells at
    /// equal times, as one engine orders them).
    mutating func process(_ fix: LocationFix) throws(GeofencingError) -> [TransitionEvent] {
        var events: [TransitionEvent] = []
        for c in cohorts.keys.sorted() {
            events += try cohorts[c]!.engine.process(fix)
        }
        if cohorts.count > 1 {
            func rank(_ k: TransitionEvent.Kind) -> Int { k == .exit ? 0 : k == .enter ? 1 : 2 }
            events.sort { ($0.time, rank($0.kind), $0.regionID) < ($1.time, rank($1.kind), $1.regionID) }
        }
        return events
    }
}

/// One cohort of the planner's engines as saved: its regions (prefixed identifier → initial
/// trigger bits) and the engine's ``Geofencing/Engine/subjectSnapshot()``.
public struct SoftCohortState: Sendable, Hashable, Codable {
    var key: Int
    var triggers: [String: UInt8]
    var engine: Data
}

/// The planner's own engines (hybrid mode) as saved, restored exactly after a relaunch.
public struct SoftEvaluatorState: Sendable, Hashable, Codable {
    var cohorts: [SoftCohortState]
    var nextCohort: Int
}
