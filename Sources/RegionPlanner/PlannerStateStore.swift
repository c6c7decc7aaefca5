import Foundation
import Geofencing

/// Where a ``RegionPlanner`` keeps its state across app launches (``RegionPlanner/restore()``).
///
/// ```swift
/// let store = FilePlannerStore(directory: appSupport, monitorName: "catalogue")   // beside the monitor
/// let planner = try RegionPlanner(monitor: slots, sources: [shops], sizing: sizing, store: store)
/// if try await !planner.restore() { try await planner.start(at: fix) }
/// ```
public protocol PlannerStateStore: Sendable {
    /// The saved state, or `nil` when there is none.
    func load() async throws -> PlannerSnapshot?
    /// Replaces the saved state.
    func save(_ snapshot: PlannerSnapshot) async throws
}

/// A catalogue region the monitor holds for the planner.
public struct Registration: Sendable, Hashable, Codable {
    /// The source's prefix.
    public var source: String
    /// The catalogue identifier (without the prefix).
    public var identifier: String
}

/// A region the planner unregistered at fix time `until`: events confirmed until then are still its.
struct RetiredRegistration: Sendable, Hashable, Codable {
    var registration: Registration
    var until: Date
}

/// What the planner saves: enough to continue after a relaunch with the regions the system
/// kept monitoring (docs/planner.md, "Restore after relaunch").
public struct PlannerSnapshot: Sendable, Hashable, Codable {
    public static let currentVersion = 1
    public var version = PlannerSnapshot.currentVersion
    /// Slot or hybrid mode.
    public var mode: PlannerMode
    /// Catalogue regions registered with the monitor, by prefixed identifier.
    public var registered: [String: Registration]
    /// Whether the re-plan region is registered.
    public var replanRegistered: Bool
    /// The plan in force (its centre is the re-plan centre).
    public var plan: PlannerPlan?
    /// The newest trusted fix and the one seen before it.
    public var lastFix: LocationFix?
    public var previousFix: LocationFix?
    /// Whether a re-plan waits for the next fix, with the new regions it must register.
    public var awaitingFix: Bool
    public var pendingFresh: Set<String>
    /// Whether continuous updates are requested.
    public var updatesRequested: Bool
    /// Hybrid mode: the states the planner's engine had (a summary; ``soft`` restores them).
    public var softStates: [String: RegionState]
    public var statistics: PlannerStatistics
    /// Hybrid mode: the planner's engines with their pending runs, restored exactly.
    var soft: SoftEvaluatorState?
    /// The track as the planner saw it (suspect and recent fix intervals included).
    var track: TrackFilter?
    /// When hybrid mode's clock last counted, and the reporting state of the conditions.
    var hybridSince: Date?
    var breachSincePlan: Bool?
    var inCoarseRun: Bool?
    /// When the exit the awaited re-plan answers was confirmed (its lateness is checked then).
    var awaitedExitTime: Date?
    /// The event latency learned from late events (seconds).
    var learnedEventLatency: TimeInterval?
    /// When an event was last later than the stated latency (nil in snapshots from before the
    /// learned latency faded: restored as the moment of the restore).
    var learnedEventLatencyAt: Date?
}

/// A ``PlannerStateStore`` in memory (tests, or an app that keeps its own persistence).
public actor MemoryPlannerStore: PlannerStateStore {
    public private(set) var snapshot: PlannerSnapshot?
    /// Saves so far.
    public private(set) var saves = 0
    public init(_ snapshot: PlannerSnapshot? = nil) { self.snapshot = snapshot }
    public func load() -> PlannerSnapshot? { snapshot }
    public func save(_ snapshot: PlannerSnapshot) {
        self.snapshot = snapshot
        saves += 1
    }
}

/// A ``PlannerStateStore`` in a JSON file beside a monitor's own file
/// (`<directory>/<monitorName>.planner.json`); writes are atomic (temporary file renamed).
public struct FilePlannerStore: PlannerStateStore {
    public let url: URL

    public init(directory: URL, monitorName: String) {
        url = directory.appendingPathComponent(monitorName + ".planner.json")
    }

    /// Infinite radii and distances (every entry registered) are written as strings.
    static let infinity = JSONEncoder.NonConformingFloatEncodingStrategy.convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")

    public func load() throws -> PlannerSnapshot? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let snapshot = try decoder.decode(PlannerSnapshot.self, from: Data(contentsOf: url))
        guard snapshot.version == PlannerSnapshot.currentVersion else {
            throw PlannerError.invalidConfiguration(
                field: "store", reason: "unsupported planner state version \(snapshot.version) in \(url.path)")
        }
        return snapshot
    }

    public func save(_ snapshot: PlannerSnapshot) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = Self.infinity
        try encoder.encode(snapshot).write(to: url, options: .atomic)
    }
}
