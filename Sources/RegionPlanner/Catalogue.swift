import Geodesy
import Geofencing

/// A region catalogue of any size with an exact k-nearest query by boundary distance.
///
/// ```swift
/// var shops = try Catalogue(entries)                  // millions are fine
/// let near = shops.nearest(20, to: here)              // ascending signed distance
/// try shops.insert(CatalogueEntry(region: newShop))   // add / replace while running
/// ```
///
/// The entries given at construction go into a static bounding-cap tree (built in
/// O(n log n)); later insertions go into a small overlay that is scanned linearly, and
/// removals leave tombstones, so the catalogue can change while the planner runs. Call
/// ``compact()`` after many changes to rebuild the tree. Distances are the regions' own
/// exact signed boundary distances (`Region.signedDistance(to:)`, metres, negative inside);
/// the tree only prunes with proven lower bounds, so ``nearest(_:to:)`` is exact.
///
/// Query cost: about O(log n + k) tree nodes and a few dozen exact distances for evenly
/// spread regions, plus O(overlay). Memory: the entries plus about 40 bytes per region.
public struct Catalogue: Sendable {
    private enum Slot: Sendable {
        case base(Int32)
        case overlay(Int)
    }

    private var tree = CapTree()
    private var base: [CatalogueEntry] = []
    private var baseRemoved: [Bool] = []
    private var overlay: [CatalogueEntry] = []
    private var overlayCenters: [UnitVector] = []
    private var overlayAngles: [Double] = []
    private var slots: [String: Slot] = [:]

    /// An empty catalogue.
    public init() {}

    /// Builds a catalogue; every region is validated.
    /// - Throws: ``PlannerError/invalidEntry(index:identifier:underlying:)`` or
    ///   ``PlannerError/duplicateIdentifier(_:index:)`` naming the entry's position.
    public init(_ entries: [CatalogueEntry]) throws(PlannerError) {
        slots.reserveCapacity(entries.count)
        var centers: [UnitVector] = []
        var radii: [Double] = []
        centers.reserveCapacity(entries.count)
        radii.reserveCapacity(entries.count)
        for (i, e) in entries.enumerated() {
            do { try e.region.validate() } catch {
                throw .invalidEntry(index: i, identifier: e.identifier, underlying: error)
            }
            guard slots.updateValue(.base(Int32(i)), forKey: e.identifier) == nil else {
                throw .duplicateIdentifier(e.identifier, index: i)
            }
            let cap = e.region.boundingCircle
            centers.append(UnitVector(cap.center))
            radii.append(cap.radius)
        }
        base = entries
        baseRemoved = Array(repeating: false, count: entries.count)
        tree = CapTree(centers: centers, boundRadii: radii)
    }

    /// Number of live entries.
    public var count: Int { slots.count }

    /// The entry with this identifier, if any.
    public func entry(_ identifier: String) -> CatalogueEntry? {
        switch slots[identifier] {
        case .base(let i): base[Int(i)]
        case .overlay(let i): overlay[i]
        case nil: nil
        }
    }

    /// Whether an entry has this identifier.
    public func contains(_ identifier: String) -> Bool { slots[identifier] != nil }

    /// All live entries (order unspecified). O(n).
    public var entries: [CatalogueEntry] {
        var out: [CatalogueEntry] = []
        out.reserveCapacity(count)
        for (i, e) in base.enumerated() where !baseRemoved[i] { out.append(e) }
        out.append(contentsOf: overlay)
        return out
    }

    /// Adds an entry, replacing one with the same identifier.
    /// - Throws: ``PlannerError/invalidEntry(index:identifier:underlying:)`` (index 0) for an invalid region.
    public mutating func insert(_ entry: CatalogueEntry) throws(PlannerError) {
        do { try entry.region.validate() } catch {
            throw .invalidEntry(index: 0, identifier: entry.identifier, underlying: error)
        }
        remove(entry.identifier)
        let cap = entry.region.boundingCircle
        slots[entry.identifier] = .overlay(overlay.count)
        overlay.append(entry)
        overlayCenters.append(UnitVector(cap.center))
        overlayAngles.append(cap.radius / lowerBoundRadius)
    }

    /// Removes the entry with this identifier; returns it, or `nil` if there was none.
    @discardableResult
    public mutating func remove(_ identifier: String) -> CatalogueEntry? {
        guard let slot = slots.removeValue(forKey: identifier) else { return nil }
        switch slot {
        case .base(let i):
            baseRemoved[Int(i)] = true
            return base[Int(i)]
        case .overlay(let i):
            let removed = overlay[i]
            let last = overlay.count - 1
            if i != last {
                overlay[i] = overlay[last]
                overlayCenters[i] = overlayCenters[last]
                overlayAngles[i] = overlayAngles[last]
                slots[overlay[i].identifier] = .overlay(i)
            }
            overlay.removeLast()
            overlayCenters.removeLast()
            overlayAngles.removeLast()
            return removed
        }
    }

    /// Rebuilds the tree over all live entries (drops tombstones, empties the overlay).
    public mutating func compact() {
        let all = entries
        // Entries were validated when they came in.
        self = (try? Catalogue(all)) ?? Catalogue()
    }

    /// Polygons farther than this (by their bounding cap) are ranked by the cap's distance.
    static let farPolygonDistance = 20_000.0

    /// The distance the catalogue ranks by: the region's own signed boundary distance, except
    /// for polygons more than ``farPolygonDistance`` away, whose (tangent-plane) distance is
    /// not meant for such ranges: they get the lower bound from their bounding cap. Never
    /// more than the true distance where it matters, which is all the re-plan sizing needs.
    static func distance(_ region: Region, _ point: Coordinate, lowerBound: Double) -> Double {
        if case .circle = region.shape { return region.signedDistance(to: point) }
        return lowerBound > farPolygonDistance ? lowerBound : region.signedDistance(to: point)
    }

    /// The distance ``nearest(_:to:)`` ranks by, for one entry (metres, negative inside).
    public func distance(of identifier: String, from point: Coordinate) -> Double? {
        let q = UnitVector(point)
        switch slots[identifier] {
        case .base(let i):
            return Catalogue.distance(base[Int(i)].region, point, lowerBound: tree.itemLowerBound(Int(i), q))
        case .overlay(let i):
            let lb = lowerBoundRadius * (q.angle(to: overlayCenters[i]) - overlayAngles[i]) - 1e-3
            return Catalogue.distance(overlay[i].region, point, lowerBound: lb)
        case nil: return nil
        }
    }

    /// The `k` entries nearest to `point` by signed boundary distance, ascending (inside
    /// regions first, deepest first). Ties are broken arbitrarily.
    public func nearest(_ k: Int, to point: Coordinate) -> [NearbyEntry] {
        nearest(k, to: point, where: nil)
    }

    /// As ``nearest(_:to:)``, keeping only entries for which `include` is true.
    public func nearest(
        _ k: Int, to point: Coordinate,
        where include: ((CatalogueEntry) -> Bool)?
    ) -> [NearbyEntry] {
        guard k > 0 else { return [] }
        let q = UnitVector(point)
        var best: [(distance: Double, item: Int32)] = []
        best.reserveCapacity(k + 1)
        // Overlay first (items encoded as negative ids: -1 - index).
        for i in overlay.indices {
            if best.count == k {
                let lb = lowerBoundRadius * (q.angle(to: overlayCenters[i]) - overlayAngles[i]) - 1e-3
                if lb >= best[k - 1].distance { continue }
            }
            if let include, !include(overlay[i]) { continue }
            let lb = lowerBoundRadius * (q.angle(to: overlayCenters[i]) - overlayAngles[i]) - 1e-3
            CapTree.insert(
                (Catalogue.distance(overlay[i].region, point, lowerBound: lb), Int32(-1 - i)),
                into: &best, k: k)
        }
        tree.nearest(to: q, k: k, into: &best) { id in
            let i = Int(id)
            if baseRemoved[i] { return nil }
            if let include, !include(base[i]) { return nil }
            return Catalogue.distance(base[i].region, point, lowerBound: tree.itemLowerBound(i, q))
        }
        return best.map { b in
            NearbyEntry(entry: b.item >= 0 ? base[Int(b.item)] : overlay[Int(-1 - b.item)], distance: b.distance)
        }
    }
}
