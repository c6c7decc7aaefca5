import Geodesy

extension Catalogue {
    /// The entries at most `distance` metres (signed boundary distance) from `point`, nearest
    /// first, and never more than `limit` of them (then the nearest `limit`). Work is bounded
    /// by `limit`: a few k-nearest queries with k growing fourfold.
    public func entries(within distance: Double, of point: Coordinate, limit: Int) -> [NearbyEntry] {
        guard limit > 0 else { return [] }
        var k = min(64, limit)
        while true {
            let found = nearest(k, to: point)
            if found.count < k || (found.last?.distance ?? .infinity) > distance || k >= limit {
                return found.filter { $0.distance <= distance }
            }
            k = min(limit, k * 4)
        }
    }
}
