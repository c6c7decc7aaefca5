import Foundation
import GeoFormats

/// Where a ``ServerPlanFollower`` keeps what it needs after a relaunch: the plan it applied and
/// the identifiers it registered, so that the next launch removes what is stale and keeps the
/// rest — with the monitor's state — instead of leaving old regions in the slots.
public protocol FollowerStateStore: Sendable {
    /// The saved state, or `nil` when there is none.
    func load() async throws -> FollowerState?
    /// Replaces the saved state.
    func save(_ state: FollowerState) async throws
}

/// What a follower saves after each plan it applies, and after each fix in hybrid mode.
public struct FollowerState: Sendable, Hashable, Codable {
    /// The plan document applied last (``ServerPlan/document``; `null` when none is).
    public var plan: JSONValue
    /// The identifiers registered for it (prefixed), without the re-plan circle.
    public var registered: [String]
    /// Whether the re-plan circle is registered.
    public var replanRegistered: Bool
    /// Slot or hybrid mode (`nil`: saved before hybrid mode existed, slot mode).
    public var mode: PlannerMode?
    /// Hybrid mode: the working set's plan document (regions kept from earlier sets appended),
    /// and how far from its centre it holds every region (metres).
    public var working: JSONValue?
    public var workingReach: Double?
    /// Hybrid mode: the follower's engines with their pending runs, restored exactly.
    var soft: SoftEvaluatorState?
    /// The track as the follower saw it (the fix before the next one primes new regions).
    var track: TrackFilter?
    /// Whether a plan is due at the next fix, and when hybrid mode's clock last counted.
    var awaitingPlan: Bool?
    var hybridSince: Date?

    public init(plan: JSONValue, registered: [String], replanRegistered: Bool) {
        self.plan = plan
        self.registered = registered
        self.replanRegistered = replanRegistered
    }
}

/// A ``FollowerStateStore`` in memory (tests, or an app with its own persistence).
public actor MemoryFollowerStore: FollowerStateStore {
    public private(set) var state: FollowerState?
    public init(_ state: FollowerState? = nil) { self.state = state }
    public func load() -> FollowerState? { state }
    public func save(_ state: FollowerState) { self.state = state }
}

/// A ``FollowerStateStore`` in a JSON file (`<directory>/<name>.follower.json`), written
/// atomically (a temporary file renamed).
public struct FileFollowerStore: FollowerStateStore {
    public let url: URL

    public init(directory: URL, name: String) {
        url = directory.appendingPathComponent(name + ".follower.json")
    }

    public func load() throws -> FollowerState? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(FollowerState.self, from: Data(contentsOf: url))
    }

    public func save(_ state: FollowerState) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(state).write(to: url, options: .atomic)
    }
}
