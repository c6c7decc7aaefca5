import Foundation
import Geodesy
import Geofencing
import RegionPlanner

/// What one device should monitor at one point: the regions of the active tiers nearest
/// first within the slots (one slot kept for the re-plan circle, as ``RegionPlanner`` keeps
/// it), and the radius of that circle.
struct DevicePlan: Sendable {
    struct Entry: Sendable {
        var region: Region
        /// Boundary distance from the plan's centre (metres, 0 inside).
        var distance: Double
        /// Whether other regions name this one as their tier parent (entering or leaving it
        /// changes the plan).
        var hasChildren: Bool
    }
    var center: Coordinate
    var regions: [Entry]
    /// Re-plan after moving this far from the centre (metres, rounded down).
    var replanRadius: Double
    /// `false` when regions crowd so that no radius keeps the planner's guarantee (the smallest
    /// radius is given; docs/planner.md, "Hybrid mode", is what a phone does then).
    var guaranteed: Bool
}

extension NearbyIndex {
    /// The plan at `point` with `slots` slots, searching `radius` metres (bounded work: see
    /// ``nearest(to:radius:limit:include:)``). The selection is RegionPlanner's ``SlotFill``
    /// rule and the radius its ``ReplanSizing``, so a phone planning for itself and the server
    /// choose the same regions.
    func plan(at point: Coordinate, slots: Int, radius: Double, sizing: ReplanSizing) -> DevicePlan {
        let tiers = TierFilter(index: self, point: point)
        let k = slots - 1
        let answer = nearest(to: point, radius: radius, limit: k + 1, include: tiers.isActive)
        let (keep, leftOut) = SlotFill.fill(
            k, keeping: [], from: answer.regions,
            id: \.region.identifier, distance: \.distance)
        let nearestOther = min(leftOut, answer.nextDistance)
        let safe = sizing.radius(nearestUnregistered: nearestOther)
        let entries = answer.regions.filter { keep.contains($0.region.identifier) }.map {
            DevicePlan.Entry(
                region: $0.region, distance: $0.distance,
                hasChildren: (childCounts[$0.region.identifier] ?? 0) > 0)
        }
        return DevicePlan(
            center: point, regions: entries,
            replanRadius: (safe ?? sizing.minimumRadius).rounded(.down), guaranteed: safe != nil)
    }
}

/// Which regions belong to the tiers active at a point: a region without a parent (or whose
/// parent is not a region of the tenant) is top-tier; a child is active when every ancestor
/// up its parent chain contains the point. A region with more than ``maximumDepth`` ancestors
/// (a cycle of parents included) is never active. Each parent's containment is computed once
/// per plan; a region costs at most ``maximumDepth`` + 1 look-ups.
final class TierFilter {
    static let maximumDepth = 16
    let index: NearbyIndex
    let point: Coordinate
    private var contains: [String: Bool] = [:]

    init(index: NearbyIndex, point: Coordinate) {
        self.index = index
        self.point = point
    }

    func isActive(_ region: Region) -> Bool {
        var current = region
        for _ in 0..<Self.maximumDepth {
            guard let p = current.parent, let parent = index.entries[p]?.region else { return true }
            guard containsPoint(p, parent) else { return false }
            current = parent
        }
        guard let p = current.parent, index.entries[p] != nil else { return true }
        return false
    }

    private func containsPoint(_ id: String, _ region: Region) -> Bool {
        if let known = contains[id] { return known }
        let inside = region.signedDistance(to: point) <= 0
        contains[id] = inside
        return inside
    }
}

extension TenantRuntime {
    /// The device plan at `point` from the tenant's ``NearbyIndex`` (built on first use, then
    /// kept up to date with every region change).
    func plan(at point: Coordinate, slots: Int, radius: Double, sizing: ReplanSizing) async throws -> DevicePlan {
        try await enter()
        defer { release() }
        if nearbyIndex == nil { nearbyIndex = NearbyIndex(regions: shards.regions) }
        return nearbyIndex!.plan(at: point, slots: slots, radius: radius, sizing: sizing)
    }
}
