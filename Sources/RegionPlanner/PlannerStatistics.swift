/// Counters of the planner's work: how much slot churn serving the catalogue costs.
///
/// ```swift
/// let s = planner.statistics
/// print(s.replans, s.registrationsPerKilometre, s.maximumSlotsUsed)
/// ```
public struct PlannerStatistics: Sendable, Hashable {
    /// Re-plans performed (the first plan included).
    public var replans = 0
    /// Re-plans that could not keep the guarantee (`Plan.guaranteed == false`, docs/planner.md).
    public var replansWithoutGuarantee = 0
    /// Catalogue regions registered with the monitor (re-plan regions not counted).
    public var registrations = 0
    /// Catalogue regions unregistered (re-plan regions not counted).
    public var removals = 0
    /// Slots in use now (re-plan region included).
    public var slotsUsed = 0
    /// Most slots in use at any moment.
    public var maximumSlotsUsed = 0
    /// Distance between successive known positions (re-plan centres and
    /// ``RegionPlanner/update(location:)`` calls), metres.
    public var distanceMeters = 0.0
    /// Calls to tier loaders.
    public var loaderCalls = 0
    /// Tier loads served from a fresh cache.
    public var cacheHits = 0

    public init() {}

    /// Registrations per kilometre of ``distanceMeters``.
    public var registrationsPerKilometre: Double { perKilometre(registrations) }
    /// Removals per kilometre of ``distanceMeters``.
    public var removalsPerKilometre: Double { perKilometre(removals) }

    private func perKilometre(_ n: Int) -> Double {
        distanceMeters > 0 ? Double(n) / (distanceMeters / 1_000) : 0
    }
}
