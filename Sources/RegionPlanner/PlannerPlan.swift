import Geodesy

/// A plan in force (``RegionPlanner/plan``).
public struct PlannerPlan: Sendable, Hashable, Codable {
    /// Where the plan was made (slot mode: the re-plan circle's centre; hybrid: the working
    /// set's centre).
    public var center: Coordinate
    /// Re-plan circle radius (slot mode; `.infinity` when every entry is registered), or
    /// the working set's radius (hybrid), metres.
    public var radius: Double
    /// Signed distance from `center` to the nearest entry nobody evaluates (metres).
    public var nearestUnregistered: Double
    /// Whether the plan keeps the guarantee under the stated conditions.
    public var guaranteed: Bool
    /// Catalogue identifiers (with prefixes) registered with the monitor.
    public var registered: Set<String>
    /// The mode the plan is for.
    public var mode: PlannerMode
}
