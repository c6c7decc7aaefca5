import Foundation
import Geodesy
import Geofencing

/// One tenant's regions arranged to answer "the `k` regions nearest to this point, within
/// `R` metres" at a cost that does not grow with the distance to the nearest region.
///
/// ```swift
/// var index = NearbyIndex(regions: engine.regions)
/// let answer = index.nearest(to: point, radius: 50_000, limit: 20)
/// ```
///
/// Each region's bounding box (conservative: it contains every point of the region) is
/// entered in the cells of a uniform grid of ``cellDegrees`` (1/16°, ≈ 7 km of latitude)
/// that it overlaps; a region overlapping more than ``maximumCellsPerRegion`` cells (larger
/// than ≈ 50 km) goes to a short `wide` list instead. A query looks at the cells of a box
/// around the point that grows by ×4 (2 km, 8 km, 32 km, …) up to `R`, computes the exact
/// boundary distance (``Region/signedDistance(to:)``) only for regions whose box is within the
/// current search distance, and stops as soon as `k` regions are known within it: every
/// region not yet seen is farther (its box does not reach the searched box, which contains
/// the whole disk of that radius).
///
/// Cost per query: at most the cells of the box of radius `R` (≤ 33 × 33 cells at the equator
/// for the 100 km cap, more towards the poles; the grid's populated cells are walked instead
/// when they are fewer), the entries in them, and the `wide` list — bounded by `R`, never by
/// how far the nearest region is. Memory: one entry per (region, cell) plus the region
/// itself, shared with the caller's copy (copy-on-write).
///
/// Not here: the engine's own ``RegionIndex``, which answers point-in-region for every fix and
/// whose cost grows with the query box (it is built for small margins).
struct NearbyIndex: Sendable {
    /// Grid cell size in degrees.
    static let cellDegrees = 1.0 / 16
    static let columns = Int(360 / cellDegrees)
    static let rows = Int(180 / cellDegrees)
    /// Regions overlapping more cells than this are kept in the `wide` list.
    static let maximumCellsPerRegion = 64
    /// Metres per degree of latitude, rounded down (the meridian's shortest degree, at the
    /// equator, is 110,574 m): a span in metres converted with it over-covers, never under.
    static let metresPerDegreeLatitude = 110_000.0
    /// Metres per degree of longitude at the equator, rounded down (111,319 m on WGS84; a
    /// parallel's degree is at least this × cos(latitude)).
    static let metresPerDegreeLongitude = 111_000.0

    /// A latitude / longitude box; `minLon ... maxLon` may extend past ±180 (a box across the
    /// antimeridian) and spans at most 360°.
    struct Box: Sendable {
        var minLat, maxLat, minLon, maxLon: Double
        var coversAllLongitudes: Bool { maxLon - minLon >= 360 }
    }

    struct Entry: Sendable {
        var region: Region
        var box: Box
    }

    private(set) var entries: [String: Entry] = [:]
    /// How many regions name each identifier as their tier parent.
    private(set) var childCounts: [String: Int] = [:]
    private var cells: [Int: Set<String>] = [:]
    private var wide: Set<String> = []

    init(regions: some Sequence<Region> = []) {
        for r in regions { insert(r) }
    }

    var count: Int { entries.count }

    /// Adds `region`, replacing a region with the same identifier.
    mutating func insert(_ region: Region) {
        remove(region.identifier)
        let box = NearbyIndex.box(of: region)
        entries[region.identifier] = Entry(region: region, box: box)
        if let p = region.parent { childCounts[p, default: 0] += 1 }
        if let keys = NearbyIndex.cellKeys(box, limit: NearbyIndex.maximumCellsPerRegion) {
            for k in keys { cells[k, default: []].insert(region.identifier) }
        } else {
            wide.insert(region.identifier)
        }
    }

    /// Removes the region `id`, if present.
    mutating func remove(_ id: String) {
        guard let old = entries.removeValue(forKey: id) else { return }
        if let p = old.region.parent {
            childCounts[p, default: 1] -= 1
            if childCounts[p] == 0 { childCounts[p] = nil }
        }
        if wide.remove(id) != nil { return }
        for k in NearbyIndex.cellKeys(old.box, limit: NearbyIndex.maximumCellsPerRegion) ?? [] {
            cells[k]?.remove(id)
            if cells[k]?.isEmpty == true { cells[k] = nil }
        }
    }

    /// A region found, with its boundary distance in metres (0 inside).
    struct Found: Sendable {
        var region: Region
        var distance: Double
    }

    /// The answer of ``nearest(to:radius:limit:)``.
    struct Answer: Sendable {
        /// Nearest first (ties by identifier), at most `limit`, all within the radius.
        var regions: [Found]
        /// A lower bound on the boundary distance of every region not returned (the search
        /// radius when nothing else is known).
        var nextDistance: Double
    }

    /// The `limit` regions nearest to `point` by boundary distance (0 inside), among those
    /// within `radius` metres (and, with `include`, among those it accepts; it is asked only
    /// about regions whose box is within the search distance).
    func nearest(
        to point: Coordinate, radius: Double, limit: Int,
        include: ((Region) -> Bool)? = nil
    ) -> Answer {
        var known: [String: Double] = [:]
        var unevaluated: Set<String> = []
        var excluded: Set<String> = []
        func consider(_ id: String, within margin: Double) {
            guard known[id] == nil, !excluded.contains(id), let e = entries[id] else { return }
            if NearbyIndex.lowerBound(from: point, to: e.box) > margin {
                unevaluated.insert(id)
                return
            }
            unevaluated.remove(id)
            if let include, !include(e.region) {
                excluded.insert(id)
                return
            }
            known[id] = max(0, e.region.signedDistance(to: point))
        }
        var margin = min(radius, 2_000)
        while true {
            for id in wide { consider(id, within: margin) }
            let box = NearbyIndex.searchBox(around: point, radius: margin)
            if let keys = NearbyIndex.cellKeys(box, limit: cells.count) {
                for k in keys { for id in cells[k] ?? [] { consider(id, within: margin) } }
            } else {
                for (k, ids) in cells where NearbyIndex.cell(k, overlaps: box) {
                    for id in ids { consider(id, within: margin) }
                }
            }
            // The regions already seen but not evaluated could be nearer than the new margin.
            for id in unevaluated { consider(id, within: margin) }
            let within = known.values.filter { $0 <= margin }.count
            if within >= limit || margin >= radius { break }
            margin = min(radius, margin * 4)
        }
        var found = known.filter { $0.value <= radius }.map { (id: $0.key, distance: $0.value) }
        found.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        let next = found.count > limit ? min(found[limit].distance, margin) : margin
        let chosen = found.prefix(limit).map { Found(region: entries[$0.id]!.region, distance: $0.distance) }
        return Answer(regions: chosen, nextDistance: next)
    }

    // MARK: Geometry

    /// A box containing every point of `region`.
    static func box(of region: Region) -> Box {
        switch region.shape {
        case .circle(let center, let radius):
            return searchBox(around: center, radius: radius)
        case .polygon(let p):
            return box(of: [p])
        case .multiPolygon(let ps):
            return box(of: ps)
        }
    }

    /// The polygons' vertex extent (edges are straight in longitude / latitude, so the
    /// vertices bound them), with rings read the short way round across the antimeridian.
    private static func box(of polygons: [Polygon]) -> Box {
        var b = Box(minLat: 90, maxLat: -90, minLon: .infinity, maxLon: -.infinity)
        var reference: Double? = nil
        for p in polygons {
            var lon = p.exterior.first?.longitude ?? 0
            if let r = reference { lon = r + wrapped(lon - r) }
            reference = reference ?? lon
            var previous = lon
            for c in p.exterior {
                let l = previous + wrapped(c.longitude - previous)
                previous = l
                b.minLat = min(b.minLat, c.latitude)
                b.maxLat = max(b.maxLat, c.latitude)
                b.minLon = min(b.minLon, l)
                b.maxLon = max(b.maxLon, l)
            }
        }
        if !(b.maxLon - b.minLon < 360) {
            b.minLon = -180
            b.maxLon = 180
        }
        return b
    }

    /// A box containing the geodesic disk of `radius` metres around `point`.
    static func searchBox(around point: Coordinate, radius: Double) -> Box {
        let dLat = radius / metresPerDegreeLatitude
        let minLat = point.latitude - dLat
        let maxLat = point.latitude + dLat
        guard minLat > -90, maxLat < 90 else {
            return Box(minLat: max(-90, minLat), maxLat: min(90, maxLat), minLon: -180, maxLon: 180)
        }
        // Along any path within the disk |latitude| ≤ the band's largest, where a degree of
        // longitude is shortest.
        let cosine = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
        let dLon = radius / (metresPerDegreeLongitude * cosine)
        guard dLon < 180 else { return Box(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180) }
        return Box(minLat: minLat, maxLat: maxLat, minLon: point.longitude - dLon, maxLon: point.longitude + dLon)
    }

    /// A lower bound on the distance in metres from `point` to anything inside `box`.
    static func lowerBound(from point: Coordinate, to box: Box) -> Double {
        let dLat = max(0, box.minLat - point.latitude, point.latitude - box.maxLat)
        var dLon = 0.0
        if !box.coversAllLongitudes {
            let east = positiveModulo(point.longitude - box.minLon, 360)
            if east > box.maxLon - box.minLon { dLon = min(east - (box.maxLon - box.minLon), 360 - east) }
        }
        let latMetres = dLat * metresPerDegreeLatitude
        // The longitude term only where it is safe and useful: within 10° (the path's
        // latitude then stays within the band of the point and the box).
        guard dLon > 0, dLon < 10 else { return latMetres }
        let band = max(abs(point.latitude), abs(box.minLat), abs(box.maxLat))
        let lonMetres = dLon * metresPerDegreeLongitude * cos(min(90, band + dLon) * .pi / 180) * 0.95
        return max(latMetres, lonMetres)
    }

    /// The keys of the cells `box` overlaps, or `nil` when there are more than `limit`.
    static func cellKeys(_ box: Box, limit: Int) -> [Int]? {
        let y0 = row(box.minLat)
        let y1 = row(box.maxLat)
        let x0: Int
        let x1: Int
        if box.coversAllLongitudes {
            x0 = 0
            x1 = columns - 1
        } else {
            x0 = Int(((box.minLon + 180) / cellDegrees).rounded(.down))
            x1 = Int(((box.maxLon + 180) / cellDegrees).rounded(.down))
        }
        let width = min(columns, x1 - x0 + 1)
        guard (y1 - y0 + 1) * width <= limit else { return nil }
        var keys: [Int] = []
        keys.reserveCapacity((y1 - y0 + 1) * width)
        for y in y0...y1 {
            for i in 0..<width { keys.append(y * columns + positiveModulo(x0 + i, columns)) }
        }
        return keys
    }

    static func cell(_ key: Int, overlaps box: Box) -> Bool {
        let y = key / columns
        let x = key % columns
        let minLat = Double(y) * cellDegrees - 90
        let minLon = Double(x) * cellDegrees - 180
        guard minLat <= box.maxLat, minLat + cellDegrees >= box.minLat else { return false }
        if box.coversAllLongitudes { return true }
        let east = positiveModulo(minLon - box.minLon, 360)
        return east <= box.maxLon - box.minLon || east + cellDegrees >= 360
    }

    private static func row(_ lat: Double) -> Int {
        min(rows - 1, max(0, Int(((lat + 90) / cellDegrees).rounded(.down))))
    }

    private static func wrapped(_ d: Double) -> Double {
        var d = d.truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
        return d
    }

    private static func positiveModulo(_ a: Double, _ m: Double) -> Double {
        let r = a.truncatingRemainder(dividingBy: m)
        return r < 0 ? r + m : r
    }

    private static func positiveModulo(_ a: Int, _ m: Int) -> Int {
        let r = a % m
        return r < 0 ? r + m : r
    }
}
