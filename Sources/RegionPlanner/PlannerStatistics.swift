import Foundation

/// Counters of the planner's work: how much slot churn serving the catalogue costs, and how
/// long it needed continuous updates.
///
/// ```swift
/// let s = await planner.statistics
/// print(s.replans, s.registrationsPerKilometre, s.hybridSeconds)
/// ```
public struct PlannerStatistics: Sendable, Hashable, Codable {
    /// Re-plans performed (the first plan included).
    public var replans = 0
    /// Plans that could not keep the slot-mode guarantee and went hybrid instead.
    public var replansWithoutGuarantee = 0
    /// Catalogue regions registered with the monitor (re-plan regions not counted).
    public var registrations = 0
    /// Catalogue regions unregistered (re-plan regions not counted).
    public var removals = 0
    /// Slots in use now (re-plan region included).
    public var slotsUsed = 0
    /// Most slots in use at any moment.
    public var maximumSlotsUsed = 0
    /// Distance between successive accepted fixes the planner saw, metres.
    public var distanceMeters = 0.0
    /// Calls to tier loaders.
    public var loaderCalls = 0
    /// Tier loads served from a fresh cache.
    public var cacheHits = 0
    /// Switches into hybrid mode.
    public var hybridEntries = 0
    /// Time spent in hybrid mode, seconds of fix time.
    public var hybridSeconds = 0.0
    /// Regions loaded into the planner's own engine (hybrid working sets, handovers included).
    public var softLoads = 0
    /// Fixes set aside as glitches (they moved no plan).
    public var glitchesRejected = 0
    /// Stated conditions seen broken (``PlannerNotice/conditionBroken(_:at:)``).
    public var conditionBreaches = 0

    public init() {}

    /// Registrations per kilometre of ``distanceMeters``.
    public var registrationsPerKilometre: Double { perKilometre(registrations) }
    /// Removals per kilometre of ``distanceMeters``.
    public var removalsPerKilometre: Double { perKilometre(removals) }

    private func perKilometre(_ n: Int) -> Double {
        distanceMeters > 0 ? Double(n) / (distanceMeters / 1_000) : 0
    }
}
