import Foundation
import Geodesy
import Geofencing

/// A way for an app to learn that its user reached places, compared by ``PowerStrategyRunner``.
public enum PowerStrategy: Sendable, Hashable {
    /// The app keeps GPS on and sends a GPS fix to a server every `intervalSeconds`; the
    /// server does the geofencing.
    case continuousReporting(intervalSeconds: Double)
    /// Region monitoring of the `slots − 1` catalogue regions nearest the user plus a re-plan
    /// region (RegionPlanner through ``MonitorSlotMonitor``); the app is suspended between events
    /// and sends each catalogue event to the server. Slots only: where the nearest regions
    /// cannot cover the re-plan circle the plan goes on unguaranteed (events may be missed).
    case nearestRegions(slots: Int)
    /// As ``nearestRegions(slots:)``, switching to hybrid mode in dense areas: continuous GPS,
    /// the app awake, the nearby catalogue evaluated in the app (RegionPlanner's hybrid mode).
    case hybridRegions(slots: Int)
    /// Region monitoring of a few large parent regions (catalogue regions grouped within
    /// `clusterMeters`); entering a parent downloads its children (one upload each), which are
    /// then monitored too (RegionPlanner tiers).
    case tieredRegions(clusterMeters: Double)

    /// A short label for tables.
    public var name: String {
        switch self {
        case .continuousReporting(let s): "continuous GPS + upload every \(Self.format(s)) s"
        case .nearestRegions(let n): "region monitoring, \(n - 1) nearest + re-plan"
        case .hybridRegions(let n): "\(n - 1) nearest + re-plan, hybrid when dense"
        case .tieredRegions(let m): "tiered regions (parents ≤ \(Self.format(m / 1_000)) km)"
        }
    }

    static func format(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(format: "%.1f", x)
    }
}

/// A track and its regions, on which strategies are compared.
public struct PowerScenario: Sendable {
    public var name: String
    /// The user's true path (time-ordered fixes).
    public var fixes: [LocationFix]
    /// The catalogue of places (circles or polygons).
    public var regions: [Region]
    /// The highest plausible speed on this track (m/s), for the planner's re-plan sizing.
    public var maximumSpeed: Double

    public init(name: String, fixes: [LocationFix], regions: [Region], maximumSpeed: Double) {
        self.name = name
        self.fixes = fixes
        self.regions = regions
        self.maximumSpeed = maximumSpeed
    }

    /// Seconds from the first fix to the last.
    public var durationSeconds: Double {
        guard let a = fixes.first?.timestamp, let b = fixes.last?.timestamp else { return 0 }
        return b.timeIntervalSince(a)
    }
}

/// What one strategy did on one scenario, and what it costs under a ``PowerModel``.
public struct StrategyReport: Sendable, Hashable {
    public var strategy: PowerStrategy
    /// The counts the model prices.
    public var usage: PowerUsage
    /// Spacing of repeated work used for the unit costs (`nil`: isolated events).
    public var spacing: TimeInterval?
    /// The model's estimate for ``usage``.
    public var estimate: PowerEstimate
    /// Catalogue enter / exit events the app (or server) learned of.
    public var events: Int
    /// Re-plans of the region planner (0 for continuous reporting), the first plan included.
    public var replans: Int
    /// Re-plans that could not keep the planner's guarantee (`Plan.guaranteed == false`,
    /// docs/planner.md): a region might then be entered before it is registered.
    public var replansWithoutGuarantee: Int
    /// Tier downloads (children loaded from the server).
    public var downloads: Int
    /// Seconds in the planner's hybrid mode (continuous GPS).
    public var hybridSeconds: Double = 0
}
