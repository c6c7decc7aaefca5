import Foundation

/// A multi-level hashed grid over latitude / longitude for point queries against millions of
/// region bounding boxes.
///
/// Level `l` (0…16) has square cells of 2^(l−8) degrees (≈ 430 m at level 0 … 256° at 16). A
/// region goes into the finest level whose cell is at least as large as its box, so it
/// occupies at most 2 × 2 cells (more only when its box is split by the antimeridian or is
/// a full band around a pole). A point query visits one cell per populated level (2 × 2 when
/// a margin is asked for).
///
/// Storage is a packed, sorted static part (cell key → contiguous run of slot numbers,
/// located through an open-addressing table) built in bulk, plus a small dynamic overflow
/// for regions inserted since; removals leave stale entries that the caller filters out
/// (every visited slot is checked against the live store). ``rebuild(_:)`` folds both back
/// into the static part; the engine calls it when the overflow or the stale entries reach a
/// quarter of the static size, so inserts and removals cost O(log n) amortised.
///
/// Memory: about 4 bytes per region-cell entry (≈ 2.3 entries per region) plus ~16 bytes per
/// occupied cell.
struct RegionIndex: Sendable {
    static let levelCount = 17
    static let slotBits: UInt64 = 26
    /// The most slots a packed entry can address (2^26 ≈ 67 million).
    static let maximumSlots = 1 << 26

    @inline(__always) static func cellSize(level: Int) -> Double {
        Double(sign: .plus, exponent: level - 8, significand: 1)
    }

    static func level(for box: GeoBox) -> Int {
        let e = max(box.maxLat - box.minLat, box.maxLon - box.minLon)
        var l = 0
        while l < levelCount - 1, cellSize(level: l) < e { l += 1 }
        return l
    }

    @inline(__always) static func key(level: Int, x: Int, y: Int) -> UInt64 {
        (UInt64(level) << 33) | (UInt64(x) << 16) | UInt64(y)
    }

    /// Calls `body` with the key of every cell of `level` that the box touches.
    @inline(__always)
    static func forEachCell(level: Int, minLat: Double, maxLat: Double, minLon: Double,
                            maxLon: Double, _ body: (UInt64) -> Void) {
        let c = cellSize(level: level)
        let nx = Int((360 / c).rounded(.up)), ny = Int((180 / c).rounded(.up))
        let y0 = max(0, Int(((minLat + 90) / c).rounded(.down)))
        let y1 = min(ny - 1, Int(((maxLat + 90) / c).rounded(.down)))
        var x0 = Int(((minLon + 180) / c).rounded(.down))
        var x1 = Int(((maxLon + 180) / c).rounded(.down))
        if x1 - x0 + 1 >= nx { x0 = 0; x1 = nx - 1 }
        if y0 > y1 { return }
        for x in x0...x1 {
            var xx = x % nx
            if xx < 0 { xx += nx }
            for y in y0...y1 { body(key(level: level, x: xx, y: y)) }
        }
    }

    // Static part.
    private var tableKeys: [UInt64] = [0]      // key + 1; 0 = empty
    private var tableCells: [Int32] = [0]
    private var tableMask = 0
    private var cellStart: [Int32] = [0]
    private var entries: [Int32] = []
    // Dynamic part.
    private var overflow: [UInt64: [Int32]] = [:]
    private(set) var overflowCount = 0
    private(set) var staleCount = 0
    private var levelCounts = [Int](repeating: 0, count: RegionIndex.levelCount)
    private(set) var staticRegionCount = 0

    init() {}

    /// Whether enough has changed since the last bulk build that a rebuild pays off.
    var needsRebuild: Bool {
        let limit = max(4_096, staticRegionCount / 4)
        return overflowCount > limit || staleCount > limit
    }

    /// Rebuilds the static part from scratch for the given (slot, box) pairs.
    mutating func rebuild(_ regions: some Sequence<(Int32, GeoBox)>) {
        var packed: [UInt64] = []
        var counts = [Int](repeating: 0, count: RegionIndex.levelCount)
        var n = 0
        for (slot, box) in regions {
            let l = RegionIndex.level(for: box)
            counts[l] += 1
            n += 1
            RegionIndex.forEachCell(level: l, minLat: box.minLat, maxLat: box.maxLat,
                                    minLon: box.minLon, maxLon: box.maxLon) { k in
                packed.append((k << RegionIndex.slotBits) | UInt64(slot))
            }
        }
        packed.sort()
        var cellKeys: [UInt64] = []
        var starts: [Int32] = []
        var ents = [Int32](repeating: 0, count: packed.count)
        var last = UInt64.max
        for (i, p) in packed.enumerated() {
            let k = p >> RegionIndex.slotBits
            if k != last { cellKeys.append(k); starts.append(Int32(i)); last = k }
            ents[i] = Int32(truncatingIfNeeded: p & ((1 << RegionIndex.slotBits) - 1))
        }
        starts.append(Int32(packed.count))
        var cap = 2
        while cap < cellKeys.count * 2 { cap <<= 1 }
        var tk = [UInt64](repeating: 0, count: cap), tc = [Int32](repeating: 0, count: cap)
        for (ci, k) in cellKeys.enumerated() {
            var h = RegionIndex.hash(k) & (cap - 1)
            while tk[h] != 0 { h = (h + 1) & (cap - 1) }
            tk[h] = k + 1; tc[h] = Int32(ci)
        }
        tableKeys = tk; tableCells = tc; tableMask = cap - 1
        cellStart = starts; entries = ents
        overflow = [:]; overflowCount = 0; staleCount = 0
        levelCounts = counts
        staticRegionCount = n
    }

    /// Adds one region to the dynamic part.
    mutating func insert(slot: Int32, box: GeoBox) {
        let l = RegionIndex.level(for: box)
        levelCounts[l] += 1
        overflowCount += 1
        RegionIndex.forEachCell(level: l, minLat: box.minLat, maxLat: box.maxLat,
                                minLon: box.minLon, maxLon: box.maxLon) { k in
            overflow[k, default: []].append(slot)
        }
    }

    /// Records that a region was removed (its entries go stale until the next rebuild).
    mutating func noteRemoval() { staleCount += 1 }

    @inline(__always) static func hash(_ k: UInt64) -> Int {
        Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> 20)
    }

    /// Calls `visit` for every slot whose cells cover the point grown by (`dLat`, `dLon`)
    /// degrees. A slot may be visited more than once when the grown point spans several
    /// cells, and stale (removed) slots are visited too: the caller filters.
    @inline(__always)
    func query(lat: Double, lon: Double, dLat: Double, dLon: Double, _ visit: (Int32) -> Void) {
        let hasOverflow = overflowCount > 0
        for l in 0..<RegionIndex.levelCount where levelCounts[l] > 0 {
            RegionIndex.forEachCell(level: l, minLat: lat - dLat, maxLat: lat + dLat,
                                    minLon: lon - dLon, maxLon: lon + dLon) { k in
                var h = RegionIndex.hash(k) & tableMask
                while true {
                    let tk = tableKeys[h]
                    if tk == 0 { break }
                    if tk == k + 1 {
                        let c = Int(tableCells[h])
                        for i in Int(cellStart[c])..<Int(cellStart[c + 1]) { visit(entries[i]) }
                        break
                    }
                    h = (h + 1) & tableMask
                }
                if hasOverflow, let more = overflow[k] { for s in more { visit(s) } }
            }
        }
    }

    /// Approximate heap bytes held by the index.
    var memoryBytes: Int {
        tableKeys.capacity * 8 + tableCells.capacity * 4 + cellStart.capacity * 4
            + entries.capacity * 4 + overflow.count * 64 + overflowCount * 8
    }
}
