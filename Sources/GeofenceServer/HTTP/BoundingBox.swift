import Foundation
import Geodesy
import Geofencing
import Hummingbird

/// The `bbox=minLon,minLat,maxLon,maxLat` filter of `GET /v1/regions` (RFC 7946 order: west,
/// south, east, north, in degrees). A box whose west edge is east of its east edge crosses the
/// antimeridian (`170,-10,-170,10` is the 20° around 180°).
///
/// A region matches when its bounding box overlaps the query box, so the answer may hold a
/// region whose shape only comes near the box (never one that is inside it and left out):
/// this is the filter a map view needs, not an exact intersection test.
struct BoundingBox: Sendable, Hashable {
    var west: Double, south: Double, east: Double, north: Double

    /// Parses the query parameter; a 400 problem naming `bbox` on anything but four finite
    /// numbers with latitudes in [-90, 90], south ≤ north and longitudes in [-180, 180].
    static func parse(_ text: String) throws(Problem) -> BoundingBox {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        func bad(_ why: String) -> Problem {
            Problem.badRequest(field: "bbox", detail: "query parameter bbox \(why) (bbox=minLon,minLat,maxLon,maxLat)")
        }
        guard text.utf8.count <= 200, parts.count == 4 else { throw bad("must be four comma-separated numbers") }
        var v: [Double] = []
        for p in parts {
            guard let d = decimalNumber(p.trimmingCharacters(in: .whitespaces)) else {
                throw bad("holds \"\(p.prefix(40))\", which is not a finite number")
            }
            v.append(d)
        }
        let box = BoundingBox(west: v[0], south: v[1], east: v[2], north: v[3])
        guard (-180.0...180.0).contains(box.west), (-180.0...180.0).contains(box.east) else {
            throw bad("longitudes must be in [-180, 180]")
        }
        guard (-90.0...90.0).contains(box.south), (-90.0...90.0).contains(box.north) else {
            throw bad("latitudes must be in [-90, 90]")
        }
        guard box.south <= box.north else { throw bad("must have minLat ≤ maxLat") }
        return box
    }

    /// Whether the box crosses the antimeridian (west edge east of the east edge).
    var crossesAntimeridian: Bool { west > east }

    /// Whether `bounds` overlaps this box. `bounds` longitudes may run past ±180 (a region
    /// box that crosses the antimeridian), which is why both are compared on the circle.
    func overlaps(_ bounds: RegionBounds) -> Bool {
        guard bounds.south <= north, bounds.north >= south else { return false }
        if bounds.east - bounds.west >= 360 { return true }
        // Longitude intervals on the circle: shift the region's interval by whole turns so
        // that it starts at or after the query's west edge, then compare.
        let queryWidth = crossesAntimeridian ? east + 360 - west : east - west
        var start = bounds.west
        let width = bounds.east - bounds.west
        while start < west { start += 360 }
        while start - 360 >= west { start -= 360 }
        // The region starts inside the query interval, or it started before and reaches in.
        return start <= west + queryWidth || start - 360 + width >= west
    }
}

/// A region's bounding box in degrees; `west` / `east` may run past ±180 for a region that
/// crosses the antimeridian, and span 360 when the region covers every longitude (a pole).
struct RegionBounds: Sendable, Hashable {
    var west: Double, south: Double, east: Double, north: Double

    /// The smallest radius of curvature of WGS84 rounded down: degree extents computed from it
    /// are never smaller than the ellipsoid's, so a circle's box is conservative.
    static let conservativeRadius = 6_335_000.0

    init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// The box of a region: a circle's from its centre and radius (conservative: latitude
    /// extent from the smallest radius of curvature, longitude extent at the box's widest
    /// latitude), a polygon's from its exterior rings' vertices.
    init(_ region: Region) {
        switch region.shape {
        case .circle(let c, let r):
            self = RegionBounds.circle(center: c, radius: r)
        case .polygon(let p):
            self = RegionBounds.rings([p.exterior])
        case .multiPolygon(let ps):
            self = RegionBounds.rings(ps.map(\.exterior))
        }
    }

    static func circle(center c: Coordinate, radius: Double) -> RegionBounds {
        let dLat = radius / conservativeRadius * 180 / .pi
        let south = c.latitude - dLat
        let north = c.latitude + dLat
        if south <= -90 || north >= 90 {
            return RegionBounds(west: -180, south: max(-90, south), east: 180, north: min(90, north))
        }
        let widest = max(abs(south), abs(north)) * .pi / 180
        let dLon = dLat / cos(widest)
        if dLon >= 180 { return RegionBounds(west: -180, south: south, east: 180, north: north) }
        return RegionBounds(west: c.longitude - dLon, south: south, east: c.longitude + dLon, north: north)
    }

    static func rings(_ rings: [[Coordinate]]) -> RegionBounds {
        var b = RegionBounds(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
        for ring in rings {
            for p in ring {
                b.west = min(b.west, p.longitude)
                b.east = max(b.east, p.longitude)
                b.south = min(b.south, p.latitude)
                b.north = max(b.north, p.latitude)
            }
        }
        if b.west > b.east { return RegionBounds(west: 0, south: 0, east: 0, north: 0) }
        return b
    }
}

/// One page of `GET /v1/regions?bbox=…`: the matching regions ordered by id after the
/// cursor, and how many match in all (so a map can say "1,000 of 14,322 shown").
struct BoundingBoxPage: Sendable {
    var regions: [Region]
    /// Regions overlapping the box, over every page.
    var matched: Int
    /// The id to pass as `after` for the next page, `nil` on the last page.
    var next: String?
}

extension BoundingBoxPage {
    /// Picks the page from every region overlapping the box: ids after `after`, the `limit`
    /// smallest, in id order. A zoomed-out map overlaps most of a tenant (100,000 regions,
    /// 1,000 a page), so this keeps a bounded max-heap of the `limit` smallest instead of
    /// sorting every candidate: O(m + k log k · log(m/k)) comparisons for m candidates after
    /// the cursor and k = `limit`, against O(m log m) (≈ 10× fewer at m = 100,000, k = 1,000).
    static func select(_ candidates: [Region], after: String?, limit: Int) -> BoundingBoxPage {
        func less(_ a: Int, _ b: Int) -> Bool { candidates[a].identifier < candidates[b].identifier }
        var heap = BoundedMaxHeap(capacity: limit)
        var eligible = 0
        for i in candidates.indices {
            if let after, candidates[i].identifier <= after { continue }
            eligible += 1
            heap.offer(i, less)
        }
        let chosen = heap.sorted(less).map { candidates[$0] }
        return BoundingBoxPage(
            regions: chosen, matched: candidates.count,
            next: eligible > limit ? chosen.last?.identifier : nil)
    }
}

/// The `capacity` smallest of the integers offered (indices, compared by a caller's order),
/// in a binary max-heap: an offer larger than the largest kept costs one comparison.
struct BoundedMaxHeap {
    let capacity: Int
    private(set) var items: [Int] = []

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        items.reserveCapacity(min(self.capacity, 4_096))
    }

    mutating func offer(_ x: Int, _ less: (Int, Int) -> Bool) {
        if items.count < capacity {
            items.append(x)
            var c = items.count - 1
            while c > 0 {
                let p = (c - 1) / 2
                guard less(items[p], items[c]) else { break }
                items.swapAt(p, c)
                c = p
            }
        } else if capacity > 0, less(x, items[0]) {
            items[0] = x
            var p = 0
            while true {
                let l = 2 * p + 1
                let r = l + 1
                var m = p
                if l < items.count, less(items[m], items[l]) { m = l }
                if r < items.count, less(items[m], items[r]) { m = r }
                if m == p { break }
                items.swapAt(p, m)
                p = m
            }
        }
    }

    /// The kept items, smallest first.
    func sorted(_ less: (Int, Int) -> Bool) -> [Int] { items.sorted(by: less) }
}

extension TenantRuntime {
    /// Every region of the tenant whose bounding box overlaps `box`, in no particular order.
    ///
    /// Answered from the tenant's ``RegionCatalog``, never under the tenant's lock: a small box
    /// costs O(regions near it); the whole world visits every populated cell of the catalog.
    /// Boxes are ``RegionMapIndex/bounds(of:)``: a circle's conservative box, a polygon's
    /// vertex extent read the short way round across the antimeridian.
    nonisolated func regions(overlapping box: BoundingBox) async throws -> [Region] {
        try await loadedCatalog().read { $0.regions(overlapping: box) ?? [] }
    }

    /// The tenant's catalog, once its engine has been loaded (a first read loads it).
    nonisolated func loadedCatalog() async throws -> RegionCatalog {
        if !catalog.isPopulated {
            try await enter()
            await release()
        }
        return catalog
    }
}

extension GeofenceServer {
    /// `GET /v1/regions?bbox=minLon,minLat,maxLon,maxLat[&after=ID][&limit=N]`: the regions
    /// whose bounding box overlaps the box, by id, with `next` (the cursor for `after`, `null`
    /// on the last page) and `matched` (how many overlap in all).
    static func regionsPage(bbox: String, after: String?, limit: Int, runtime: TenantRuntime) async throws -> Response {
        let box = try BoundingBox.parse(bbox)
        let page = BoundingBoxPage.select(try await runtime.regions(overlapping: box), after: after, limit: limit)
        return .json(
            .object([
                "regions": .array(page.regions.map(RegionJSON.feature)),
                "next": page.next.map(ServerJSON.string) ?? .null,
                "matched": .number(Double(page.matched)),
            ]))
    }
}
