/// The slot rule every plan uses, on the phone (``RegionPlanner``) and on the server (device
/// plans): keep the pinned regions, fill up to `k` with the nearest candidates, and report the
/// distance of the nearest candidate left out, which sizes the re-plan circle
/// (``ReplanSizing/radius(nearestUnregistered:)``).
///
/// ```swift
/// let (keep, nearestOther) = SlotFill.fill(19, keeping: [], from: sorted, id: \.id, distance: \.distance)
/// let radius = sizing.radius(nearestUnregistered: nearestOther)
/// ```
///
/// `candidates` must be in ascending distance (signed boundary distance, metres). O(n).
public enum SlotFill {
    public static func fill<C>(
        _ k: Int, keeping pinned: Set<String>, from candidates: [C],
        id: (C) -> String, distance: (C) -> Double
    ) -> (keep: Set<String>, nearestOther: Double) {
        var keep = pinned
        var nearestOther = Double.infinity
        for cand in candidates where !keep.contains(id(cand)) {
            if keep.count < k {
                keep.insert(id(cand))
            } else {
                nearestOther = distance(cand)
                break
            }
        }
        return (keep, nearestOther)
    }
}
