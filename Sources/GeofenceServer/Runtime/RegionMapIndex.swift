import Foundation
import Geodesy
import Geofencing

/// One tenant's regions arranged for what a map and a list ask: "the regions overlapping this
/// box", "how many regions lie where, at this scale", "the regions whose id or name holds this
/// text" — at a cost that depends on the answer, not on the tenant's size.
///
/// ```swift
/// var index = RegionMapIndex(regions: engine.regions)
/// let view = index.regions(overlapping: box, cap: 2_000)   // nil: more than 2,000
/// let counts = index.clusters(in: box, level: 10)           // one per populated cell
/// ```
///
/// A pyramid of grids: level `L` cuts the world into cells of ``cellDegrees(_:)`` = 360 / 2^L
/// degrees (a level-`L+1` cell is a quarter of a level-`L` cell), from one cell (level 0) to
/// 0.0055° ≈ 600 m (level ``finestLevel``). Every level counts the regions whose centre lies in
/// each cell, with the centres' sum (clusters at any scale in O(cells shown)). Each region is
/// also *stored* in one cell: at the finest level whose cell is at least as large as its
/// bounding box, in the cell holding its centre (a loose quadtree: the region lies within its
/// cell grown by half a cell on every side). A box query descends from level 0 through
/// populated cells whose grown extent overlaps the box, so it visits only cells near regions
/// near the box: O(answer × levels) for a small box, every populated cell for the whole world.
///
/// Memory: per region its entry (a copy of the region) and one cell per level, shared by
/// regions close together: 72 MiB more resident memory for 100,000 small circles (docs/server.md,
/// "Dashboard"). Building it costs O(regions × levels); an update O(levels) per region.
///
/// Not here: exact geometry (boxes only; the engine's ``RegionIndex`` answers point-in-region)
/// and locking (``RegionCatalog`` owns one index per tenant behind its lock).
struct RegionMapIndex: Sendable {
    /// The finest level: cells of 360 / 2^16 = 0.0055° (≈ 610 m of latitude).
    static let finestLevel = 16

    /// The edge of a level's cells, in degrees.
    static func cellDegrees(_ level: Int) -> Double { 360 / Double(1 << level) }

    struct Entry: Sendable {
        var region: Region
        /// The region's box: longitudes may run past ±180 (a region across the antimeridian).
        var bounds: RegionBounds
        var centreLongitude: Double
        var centreLatitude: Double
        /// The level and cell key the region is stored in.
        var level: Int
    }

    /// A populated cell of one level.
    struct Cell: Sendable {
        /// Regions whose centre lies in the cell.
        var count = 0
        var sumLongitude = 0.0
        var sumLatitude = 0.0
        /// Regions stored at this cell (their box fits a cell of this level, not the next).
        var stored: [String] = []
    }

    /// Regions whose centre lies in one cell: what a map draws instead of the regions at low zoom.
    struct Cluster: Sendable, Equatable {
        var count: Int
        /// The mean of the regions' centres, in degrees.
        var longitude: Double
        var latitude: Double
        /// The cell.
        var west: Double, south: Double, east: Double, north: Double
    }

    private(set) var entries: [String: Entry] = [:]
    private var levels: [[Int: Cell]] = Array(repeating: [:], count: finestLevel + 1)

    init(regions: some Sequence<Region> = []) {
        for r in regions { insert(r) }
    }

    var count: Int { entries.count }

    // MARK: Updates

    /// Adds `region`, replacing a region with the same identifier.
    mutating func insert(_ region: Region) {
        remove(region.identifier)
        let bounds = RegionMapIndex.bounds(of: region)
        var lon = ((bounds.west + bounds.east) / 2).truncatingRemainder(dividingBy: 360)
        if lon >= 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        let lat = min(90, max(-90, (bounds.south + bounds.north) / 2))
        let size = max(bounds.east - bounds.west, bounds.north - bounds.south)
        var level = 0
        while level < RegionMapIndex.finestLevel, RegionMapIndex.cellDegrees(level + 1) >= size { level += 1 }
        let entry = Entry(
            region: region, bounds: bounds, centreLongitude: lon, centreLatitude: lat, level: level)
        entries[region.identifier] = entry
        for l in 0...RegionMapIndex.finestLevel {
            let key = RegionMapIndex.key(lon, lat, level: l)
            levels[l][key, default: Cell()].count += 1
            levels[l][key]!.sumLongitude += lon
            levels[l][key]!.sumLatitude += lat
            if l == level { levels[l][key]!.stored.append(region.identifier) }
        }
    }

    /// Removes the region `id`, if present.
    mutating func remove(_ id: String) {
        guard let old = entries.removeValue(forKey: id) else { return }
        for l in 0...RegionMapIndex.finestLevel {
            let key = RegionMapIndex.key(old.centreLongitude, old.centreLatitude, level: l)
            guard var cell = levels[l][key] else { continue }
            cell.count -= 1
            cell.sumLongitude -= old.centreLongitude
            cell.sumLatitude -= old.centreLatitude
            if l == old.level, let i = cell.stored.firstIndex(of: id) { cell.stored.remove(at: i) }
            levels[l][key] = cell.count == 0 ? nil : cell
        }
    }

    // MARK: Queries

    /// The regions whose box overlaps `box`, in no particular order; `nil` as soon as more than
    /// `cap` are found.
    func regions(overlapping box: BoundingBox, cap: Int = .max) -> [Region]? {
        var found: [Region] = []
        var frontier: [Int] = levels[0][0] == nil ? [] : [0]
        for level in 0...RegionMapIndex.finestLevel {
            var next: [Int] = []
            let columns = 1 << level
            for key in frontier {
                guard let cell = levels[level][key] else { continue }
                guard box.overlaps(RegionMapIndex.grownCell(key, level: level)) else { continue }
                for id in cell.stored {
                    guard let e = entries[id], box.overlaps(e.bounds) else { continue }
                    found.append(e.region)
                    if found.count > cap { return nil }
                }
                guard level < RegionMapIndex.finestLevel else { continue }
                let column = key % columns
                let row = key / columns
                for dy in 0...1 {
                    for dx in 0...1 {
                        let child = (2 * row + dy) * (2 * columns) + 2 * column + dx
                        if levels[level + 1][child] != nil { next.append(child) }
                    }
                }
            }
            frontier = next
        }
        return found
    }

    /// The populated cells of `level` that overlap `box`, one cluster each. Visits at most the
    /// cells the box covers at that level, or the level's populated cells when they are fewer:
    /// callers bound the level with ``level(for:cellsAtMost:)``.
    func clusters(in box: BoundingBox, level: Int) -> [Cluster] {
        var out: [Cluster] = []
        forEachCell(in: box, level: level) { key, cell in
            let c = RegionMapIndex.cellDegrees(level)
            let columns = 1 << level
            let west = Double(key % columns) * c - 180
            let south = Double(key / columns) * c - 90
            out.append(
                Cluster(
                    count: cell.count, longitude: cell.sumLongitude / Double(cell.count),
                    latitude: cell.sumLatitude / Double(cell.count), west: west, south: south,
                    east: west + c, north: min(90, south + c)))
        }
        return out
    }

    /// How many regions have their centre inside `box` for certain: the counts of the cells of
    /// `level` that lie wholly inside it (a lower bound; cells on its edge are left out).
    func centresSurelyInside(_ box: BoundingBox, level: Int) -> Int {
        var n = 0
        let c = RegionMapIndex.cellDegrees(level)
        forEachCell(in: box, level: level) { key, cell in
            let columns = 1 << level
            let west = Double(key % columns) * c - 180
            let south = Double(key / columns) * c - 90
            let inLatitude = south >= box.south && south + c <= box.north
            if inLatitude, RegionMapIndex.contains(box, west: west, east: west + c) { n += cell.count }
        }
        return n
    }

    /// The finest level, at most `level`, at which `box` covers no more than `cellsAtMost` cells.
    static func level(_ level: Int, for box: BoundingBox, cellsAtMost: Int) -> Int {
        var l = min(max(0, level), finestLevel)
        while l > 0 {
            let c = cellDegrees(l)
            let width = box.crossesAntimeridian ? box.east + 360 - box.west : box.east - box.west
            let cells = (width / c + 2) * ((box.north - box.south) / c + 2)
            if cells <= Double(cellsAtMost) { break }
            l -= 1
        }
        return l
    }

    /// Regions whose identifier or `name` holds `text` (case-insensitive; every region for an
    /// empty text), ids after `after`, the `limit` smallest in id order, with how many match in
    /// all. One pass over the tenant's regions (O(regions)), never under the tenant's lock.
    func search(_ text: String, after: String?, limit: Int) -> BoundingBoxPage {
        let needle = text.lowercased()
        var matching: [Region] = []
        for e in entries.values {
            let r = e.region
            if needle.isEmpty || r.identifier.lowercased().contains(needle)
                || (r.metadata["name"]?.lowercased().contains(needle) ?? false)
            {
                matching.append(r)
            }
        }
        return BoundingBoxPage.select(matching, after: after, limit: limit)
    }

    // MARK: Cells

    /// The box a region occupies: a circle's as ``RegionBounds`` computes it (conservative), a
    /// polygon's from its vertices read the short way round across the antimeridian.
    static func bounds(of region: Region) -> RegionBounds {
        if case .circle = region.shape { return RegionBounds(region) }
        let b = NearbyIndex.box(of: region)
        return RegionBounds(west: b.minLon, south: b.minLat, east: b.maxLon, north: b.maxLat)
    }

    static func key(_ lon: Double, _ lat: Double, level: Int) -> Int {
        let c = cellDegrees(level)
        let columns = 1 << level
        let rows = max(1, columns / 2)
        let column = min(columns - 1, max(0, Int(((lon + 180) / c).rounded(.down))))
        let row = min(rows - 1, max(0, Int(((lat + 90) / c).rounded(.down))))
        return row * columns + column
    }

    /// A cell grown by half its size on every side: it contains every region stored in the cell.
    static func grownCell(_ key: Int, level: Int) -> RegionBounds {
        let c = cellDegrees(level)
        let columns = 1 << level
        let west = Double(key % columns) * c - 180
        let south = Double(key / columns) * c - 90
        return RegionBounds(west: west - c / 2, south: south - c / 2, east: west + 1.5 * c, north: south + 1.5 * c)
    }

    /// Whether the longitudes `west...east` (inside [-180, 180]) lie inside the box's.
    static func contains(_ box: BoundingBox, west: Double, east: Double) -> Bool {
        if box.crossesAntimeridian { return west >= box.west || east <= box.east }
        return west >= box.west && east <= box.east
    }

    /// Calls `body` for each populated cell of `level` overlapping `box` (by the cell itself).
    private func forEachCell(in box: BoundingBox, level: Int, _ body: (Int, Cell) -> Void) {
        let cells = levels[level]
        let c = RegionMapIndex.cellDegrees(level)
        let columns = 1 << level
        let rows = max(1, columns / 2)
        let row0 = max(0, Int(((box.south + 90) / c).rounded(.down)))
        let row1 = min(rows - 1, Int(((box.north + 90) / c).rounded(.down)))
        guard row0 <= row1 else { return }
        var spans: [(Int, Int)] = []
        func span(_ w: Double, _ e: Double) {
            let a = max(0, Int(((w + 180) / c).rounded(.down)))
            let b = min(columns - 1, Int(((e + 180) / c).rounded(.down)))
            if a <= b { spans.append((a, b)) }
        }
        if box.crossesAntimeridian {
            span(box.west, 180)
            span(-180, box.east)
        } else {
            span(box.west, box.east)
        }
        let covered = spans.reduce(0) { $0 + $1.1 - $1.0 + 1 } * (row1 - row0 + 1)
        if covered > cells.count {
            for (key, cell) in cells {
                let row = key / columns
                let column = key % columns
                if row >= row0, row <= row1, spans.contains(where: { column >= $0.0 && column <= $0.1 }) {
                    body(key, cell)
                }
            }
            return
        }
        for row in row0...row1 {
            for (a, b) in spans {
                for column in a...b {
                    let key = row * columns + column
                    if let cell = cells[key] { body(key, cell) }
                }
            }
        }
    }
}
