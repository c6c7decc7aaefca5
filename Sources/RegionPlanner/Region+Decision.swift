import Foundation
import Geodesy
import Geofencing

extension HysteresisPolicy {
    /// The side `fix` decides for `region` under this policy (`.inside` / `.outside`), or
    /// `.unknown` when it decides nothing (unusable, within the margin, or inside but too
    /// coarse for the region). One metre stricter than the engine, so that rounding in the engine's own
    /// distance never makes the two disagree: when this says a side, the engine agrees.
    func decidedSide(of region: Region, at fix: LocationFix) -> RegionState {
        let accuracy = fix.horizontalAccuracy ?? assumedAccuracy
        guard accuracy <= maximumAccuracy else { return .unknown }
        let size = region.sizeMeters
        let d = region.signedDistance(to: fix.coordinate)
        let exit =
            max(
                exitMargin(accuracy: accuracy, regionSize: size * 0.999),
                exitMargin(accuracy: accuracy, regionSize: size * 1.001)) + 1
        if d > exit { return .outside }
        // "Inside" needs a fix fine enough for the region at either end of the tolerance.
        guard let m = margin(accuracy: accuracy, regionSize: size * 0.999),
            let upper = margin(accuracy: accuracy, regionSize: size * 1.001)
        else { return .unknown }
        if d < -(max(m, upper) + 1) { return .inside }
        return .unknown
    }
}

extension HysteresisPolicy {
    /// Whether `x` and the fix before it (`previous`) both decide `region` on `side`: then
    /// nothing is pending for it at `x` in any engine that saw both (the earlier fix cancelled
    /// any run towards the other side, and `x` starts none), so it can change hands at `x`.
    /// The one handover rule of ``RegionPlanner`` and ``ServerPlanFollower``.
    func settled(_ region: Region, _ side: RegionState, at x: LocationFix, previous: LocationFix?) -> Bool {
        guard decidedSide(of: region, at: x) == side else { return false }
        guard let p = previous, p != x, p.timestamp <= x.timestamp else { return true }
        return decidedSide(of: region, at: p) == side
    }

    /// Whether `region`, registered with a monitor at `x`, starts there on `side` as the
    /// whole-catalogue engine has it. `nextFixClearance`: the monitor may evaluate the fix
    /// after `x` first (a phone), so `x` and that fix must both decide it: it must lie this
    /// far inside `side` (`nil`: `x` is its first fix).
    func startsAlike(_ region: Region, _ side: RegionState, at x: LocationFix, nextFixClearance: Double?) -> Bool {
        guard decidedSide(of: region, at: x) == side else { return false }
        guard let clearance = nextFixClearance else { return true }
        let depth = region.signedDistance(to: x.coordinate) * (side == .inside ? -1 : 1)
        return depth >= clearance
    }
}

extension Region {
    /// The engine's region size: the radius of a circle, √(area / π) for polygons (area in a
    /// local tangent plane at the first vertex; within a fraction of a per cent for regions up
    /// to tens of kilometres, and ``HysteresisPolicy/decidedSide(of:at:)`` allows 0.1 %).
    var sizeMeters: Double {
        switch shape {
        case .circle(_, let radius): return radius
        case .polygon(let p): return (Self.area(p) / .pi).squareRoot()
        case .multiPolygon(let ps): return (ps.reduce(0) { $0 + Self.area($1) } / .pi).squareRoot()
        }
    }

    private static func area(_ p: Polygon) -> Double {
        guard let origin = p.exterior.first else { return 0 }
        let projection = LocalProjection(origin: origin)
        func ring(_ r: [Coordinate]) -> Double {
            let pts = r.map { projection.project($0) }
            var a = 0.0
            for i in pts.indices {
                let j = (i + 1) % pts.count
                a += pts[i].east * pts[j].north - pts[j].east * pts[i].north
            }
            return abs(a) / 2
        }
        return max(0, ring(p.exterior) - p.holes.reduce(0) { $0 + ring($1) })
    }
}
