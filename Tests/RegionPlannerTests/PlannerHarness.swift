import DriveSupport
import Foundation
import Geodesy
import Geofencing

@testable import RegionPlanner

/// Runs one engine holding the whole catalogue and a 20-slot planner side by side on the same
/// fixes (and the same catalogue edits), and collects what each reported.
///
/// Per fix, in this order: the catalogue edits due before it (both sides); a relaunch if one is
/// due (the planner and its engine discarded, the monitor — the operating system — kept, a new
/// planner restored from the store); the fix to the planner if the app receives it
/// (`.everyFix`, or while the planner asks for continuous updates); the fix to the monitor and
/// its events to the planner; the fix to the reference engine.
struct PlannerHarness {
    enum Delivery {
        /// The app gets a fix only while the planner asks for updates (hybrid, probes).
        case eventsOnly
        /// The app gets every fix (a navigation app, a fitness tracker).
        case everyFix
    }

    /// Which the app hears first about a position: the position itself, or the region events
    /// it confirmed (a phone: Core Location evaluates its regions before the app gets the fix).
    enum Order {
        case fixFirst
        case eventsFirst
        /// The monitor evaluates the fix, the app takes the position, then the region events
        /// (docs/ios.md's loop: `takeLocations()` before `takeEvents()`).
        case evaluatedFixFirst
    }

    enum Edit {
        case add([Region])
        case remove([String])
        case removePrefix(String)
    }

    struct Options {
        var delivery: Delivery = .eventsOnly
        var order: Order = .fixFirst
        /// The monitor says it may see fixes first even though the harness feeds the planner
        /// first (the phone's rule applied to the harness's order).
        var monitorMayEvaluateFirst = false
        var edits: [Int: [Edit]] = [:]
        var relaunchBefore: Set<Int> = []
        /// Relaunch at the first of these fixes (or after) where the planner is in slot mode and
        /// waits for no fix (a relaunch in any mode: `relaunchBefore`, `relaunchAfterHybridEvents`).
        var relaunchInSlotMode: [Int] = []
        /// Relaunch right after the n-th fix (0-based ordinals) whose ``RegionPlanner/observe(_:)``
        /// returned events: just after a confirmation by the planner's own engines.
        var relaunchAfterHybridEvents: Set<Int> = []
        var allowsHybrid = true
        var slots = 20
        /// Each monitor event reaches the app this many seconds (drawn evenly from the range,
        /// seeded) after the fix that confirmed it, at the first fix stamped at or after then
        /// (Core Location's late events); `nil`: at once.
        var eventDelay: ClosedRange<Double>?
        var eventDelaySeed: UInt64 = 1
        /// Only this region's events are held back by ``eventDelay`` (the others reach the app
        /// at once); `nil`: every event.
        var delayedRegion: String?
        /// The latency the monitor states (``SlotMonitor/eventLatency``).
        var statedEventLatency: Double = 0
        /// The app also gets significant-location-change fixes: a fix at least 500 m and 300 s
        /// after the previous one (Core Location's figures), while it gets no other.
        var significantChanges = false
        /// Record the planner's mode after every fix (``Result/modes``).
        var tracesModes = false
    }

    struct Result {
        var reference: [EventKey]
        var planned: [EventKey]
        var crossedAtDifferences: Int
        var statistics: PlannerStatistics
        var maximumRegistered: Int
        var notices: [PlannerNotice]
        var kilometres: Double
        var durationSeconds: Double
        /// Monitor events delivered while the app was not receiving fixes (each wakes it).
        var wakeUps: Int
        /// Fixes the app received outside hybrid mode (re-plan probes).
        var probeFixes: Int
        var stalledAtEnd: Bool
        /// Fixes before which a slot-mode relaunch happened.
        var relaunchedBefore: [Int] = []
        /// The planner's mode at each relaunch, in order.
        var relaunchModes: [PlannerMode] = []
        /// Indices of the fixes at which the monitor confirmed the re-plan region's exit.
        var replanExitIndices: [Int]
        /// Significant-location-change fixes the app received (each wakes it).
        var significantChangeFixes = 0
        /// The planner's mode after each fix, when ``Options/tracesModes``.
        var modes: [PlannerMode] = []
        /// The planner's status after the last fix.
        var finalStatus: PlannerStatus?

        var missed: Set<EventKey> { Set(reference).subtracting(planned) }
        var extra: Set<EventKey> { Set(planned).subtracting(reference) }
        var churnPerKilometre: Double {
            Double(statistics.registrations + statistics.removals + statistics.softLoads) / max(kilometres, 1e-9)
        }
        var hybridShare: Double { durationSeconds > 0 ? statistics.hybridSeconds / durationSeconds : 0 }
    }

    static func order(_ a: EventKey, _ b: EventKey) -> Bool {
        (a.time, a.region, a.kind.rawValue) < (b.time, b.region, b.kind.rawValue)
    }

    /// Runs the drive on the drive harnesses' own thread (``DriveExecutor``), off Swift's
    /// cooperative pool, whatever the calling test's traits.
    static func run(
        regions: [Region], catalogue: Catalogue? = nil, fixes: [LocationFix], kilometres: Double,
        policy: HysteresisPolicy, sizing: ReplanSizing, options: Options = Options()
    ) async throws -> Result {
        try await withDriveExecutor {
            try await drive(
                regions: regions, catalogue: catalogue, fixes: fixes, kilometres: kilometres, policy: policy,
                sizing: sizing, options: options)
        }
    }

    private static func drive(
        regions: [Region], catalogue: Catalogue?, fixes: [LocationFix], kilometres: Double,
        policy: HysteresisPolicy, sizing: ReplanSizing, options: Options
    ) async throws -> Result {
        var reference = Engine(policy: policy)
        try reference.add(contentsOf: regions)
        let catalogue = try catalogue ?? Catalogue(regions.map { CatalogueEntry(region: $0) })
        let monitor = EngineSlotMonitor(
            subject: fixes[0].subject, policy: policy, slotCapacity: options.slots,
            evaluatesFixesFirst: options.order != .fixFirst || options.monitorMayEvaluateFirst,
            eventLatency: options.statedEventLatency)
        let store = MemoryPlannerStore()
        // The source's catalogue is part of the app's data (it survives a relaunch, edits included).
        var appCatalogue = catalogue
        func makePlanner() throws -> RegionPlanner<EngineSlotMonitor> {
            try RegionPlanner(
                monitor: monitor, sources: [PlannerSource(prefix: "biz.", catalogue: appCatalogue)],
                sizing: sizing, policy: policy, allowsHybrid: options.allowsHybrid, store: store)
        }
        var planner = try makePlanner()
        try await planner.start(at: fixes[0])
        var expected: [EventKey] = []
        var got: [EventKey] = []
        var crossed: [EventKey: Date] = [:]
        var gotCrossed: [EventKey: Date] = [:]
        var notices: [PlannerNotice] = []
        var wakeUps = 0
        var probeFixes = 0
        var replanExits: [Int] = []
        var pendingSlotRelaunches = options.relaunchInSlotMode.sorted()
        var relaunched: [Int] = []
        var relaunchModes: [PlannerMode] = []
        var hybridEventFixes = 0
        var relaunchNext = false
        var delays = SplitMix64(seed: options.eventDelaySeed)
        var held: [(due: Date, event: TransitionEvent)] = []
        var lastSignificant: LocationFix?
        var significantFixes = 0
        var modes: [PlannerMode] = []
        func take(_ events: [PlannerEvent]) {
            for p in events where p.kind != .dwell {
                let key = EventKey(kind: p.kind, region: p.identifier, time: p.event.time)
                got.append(key)
                gotCrossed[key] = p.event.crossedAt
            }
        }
        for (i, fix) in fixes.enumerated() {
            for edit in options.edits[i] ?? [] {
                switch edit {
                case .add(let added):
                    for r in added where reference.region(identifier: r.identifier) != r { try reference.add(r) }
                    try await planner.add(added.map { CatalogueEntry(region: $0) }, to: "biz.")
                    for r in added { try appCatalogue.insert(CatalogueEntry(region: r)) }
                case .remove(let ids):
                    for id in ids {
                        _ = reference.remove(identifier: id)
                        appCatalogue.remove(id)
                    }
                    try await planner.remove(ids, from: "biz.")
                case .removePrefix(let start):
                    for id in reference.regionIdentifiers where id.hasPrefix(start) {
                        _ = reference.remove(identifier: id)
                        appCatalogue.remove(id)
                    }
                    try await planner.removeAll(from: "biz.", identifiersStartingWith: start)
                }
            }
            var relaunch = options.relaunchBefore.contains(i) || relaunchNext
            relaunchNext = false
            if let next = pendingSlotRelaunches.first, i >= next {
                let status = await planner.status
                if status.mode == .slots && !status.locationUpdatesRequested {
                    relaunch = true
                    pendingSlotRelaunches.removeFirst()
                    relaunched.append(i)
                }
            }
            if relaunch {
                relaunchModes.append(await planner.status.mode)
                notices += await planner.takeNotices()
                let statistics = await planner.statistics
                planner = try makePlanner()
                let restored = try await planner.restore()
                precondition(restored && statistics.replans > 0)
            }
            func significantChange() -> Bool {
                guard options.significantChanges else { return false }
                if let l = lastSignificant,
                    fix.timestamp.timeIntervalSince(l.timestamp) < 300
                        || Geodesic.wgs84.inverse(l.coordinate, fix.coordinate).distance < 500
                {
                    return false
                }
                lastSignificant = fix
                return true
            }
            func deliverFix() async throws {
                let updates = options.delivery == .everyFix || monitor.locationUpdatesEnabled
                let significant = significantChange()
                guard updates || significant else { return }
                if !updates { significantFixes += 1 }
                if updates, await planner.status.mode == .slots { probeFixes += 1 }
                let events = try await planner.observe(fix)
                if !events.isEmpty {
                    relaunchNext = options.relaunchAfterHybridEvents.contains(hybridEventFixes)
                    hybridEventFixes += 1
                }
                take(events)
            }
            func deliverEvents(_ events: [TransitionEvent]) async throws {
                var now: [TransitionEvent] = []
                for e in events {
                    guard let range = options.eventDelay, options.delayedRegion.map({ $0 == e.regionID }) ?? true
                    else {
                        now.append(e)
                        continue
                    }
                    held.append((e.time.addingTimeInterval(delays.uniform(range.lowerBound, range.upperBound)), e))
                }
                try await deliver(now)
            }
            func deliver(_ events: [TransitionEvent]) async throws {
                for e in events {
                    if !monitor.locationUpdatesEnabled { wakeUps += 1 }
                    if e.regionID == RegionPlanner<EngineSlotMonitor>.replanIdentifier { replanExits.append(i) }
                    take(try await planner.handle(e))
                }
            }
            // Late events due by this fix reach the app before it.
            held.sort { $0.due < $1.due }
            let due = held.prefix { $0.due <= fix.timestamp }.map(\.event)
            held.removeFirst(due.count)
            try await deliver(due)
            switch options.order {
            case .fixFirst:
                try await deliverFix()
                try await deliverEvents(try monitor.process(fix))
            case .eventsFirst:
                try await deliverEvents(try monitor.process(fix))
                try await deliverFix()
            case .evaluatedFixFirst:
                let events = try monitor.process(fix)
                try await deliverFix()
                try await deliverEvents(events)
            }
            if options.tracesModes { modes.append(await planner.status.mode) }
            for e in try reference.process(fix) where e.kind != .dwell {
                let key = EventKey(kind: e.kind, region: e.regionID, time: e.time)
                expected.append(key)
                crossed[key] = e.crossedAt
            }
        }
        for (_, e) in held.sorted(by: { $0.due < $1.due }) {
            take(try await planner.handle(e))
        }
        notices += await planner.takeNotices()
        var differences = 0
        for (k, c) in crossed where gotCrossed[k].map({ $0 != c }) ?? false { differences += 1 }
        let statistics = await planner.statistics
        let status = await planner.status
        let plan = await planner.plan
        let duration = fixes.last!.timestamp.timeIntervalSince(fixes[0].timestamp)
        return Result(
            reference: expected.sorted(by: order), planned: got.sorted(by: order),
            crossedAtDifferences: differences, statistics: statistics,
            maximumRegistered: monitor.maximumRegistered, notices: notices,
            kilometres: kilometres, durationSeconds: duration, wakeUps: wakeUps, probeFixes: probeFixes,
            stalledAtEnd: plan == nil
                || (status.mode == .slots && !status.locationUpdatesRequested
                    && plan!.radius.isFinite
                    && monitor.state(of: RegionPlanner<EngineSlotMonitor>.replanIdentifier) == .outside),
            relaunchedBefore: relaunched, relaunchModes: relaunchModes, replanExitIndices: replanExits,
            significantChangeFixes: significantFixes, modes: modes, finalStatus: status)
    }
}
