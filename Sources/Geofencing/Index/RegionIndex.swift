import CPrefetch
import Foundation

/// A multi-level hashed grid over latitude / longitude for point queries against millions of
/// region bounding boxes.
///
/// Level `l` (0…16) has square cells of 2^(l−8) degrees (≈ 430 m at level 0 … 256° at 16). A
/// region's natural level is the finest whose cell is at least as large as its box (it then
/// occupies at most 2 × 2 cells, more only when its box is split by the antimeridian or is a
/// full band around a pole). Where it actually goes is chosen at each rebuild
/// (``Placement``): sparse data is lifted into one level (one probe per query, short
/// cells); dense data stays at its natural levels from the median's up, or is lowered one
/// level below the median's (spanning up to 5 × 5 cells), whichever the estimated query cost
/// favours within 8 entries per region. A point query visits one cell per populated level
/// (2 × 2 when a margin is asked for).
///
/// Each entry carries, besides the slot number, the part of the region's box that falls in
/// its cell, quantised to 1/65,536 of the cell and rounded outwards (12 bytes per entry), so
/// a query scans its cell's entries contiguously and reports only regions whose box overlaps
/// the (grown) point — without touching per-region data. Entries near the antimeridian or on
/// coarse levels (≥ 12) cover their whole cell.
///
/// Storage is a packed, sorted static part (an open-addressing table from cell key to a
/// contiguous run of entries) built in bulk, plus a small dynamic overflow for regions
/// inserted since; removals leave stale entries that the caller filters out (every visited
/// slot must be checked against the live store). ``rebuild(_:)`` folds both back into the
/// static part; the engine calls it when the overflow or the stale entries reach a quarter of
/// the static size, so inserts and removals cost O(log n) amortised.
///
/// Memory: 12 bytes per region-cell entry (≈ 2.3 entries per region at natural levels, up
/// to 8 when lowered) plus 32–64 bytes per occupied cell (16-byte buckets, the table a
/// quarter to half full).
struct RegionIndex: Sendable {
    static let levelCount = 17
    static let slotBits: UInt64 = 26
    /// The most slots a packed entry can address (2^26 ≈ 67 million).
    static let maximumSlots = 1 << 26
    /// Levels from this one up store whole-cell entries (360 / cell is not an integer there).
    static let firstCoarseLevel = 12
    /// Average entries per occupied cell up to which lifting all regions into one coarser
    /// level is preferred to probing several levels (a probe is a cache miss; scanning an
    /// entry costs about a nanosecond).
    static let liftedCellLimit = 32

    struct Entry: Sendable {
        var slot: Int32
        var x0: UInt16, x1: UInt16, y0: UInt16, y1: UInt16
    }

    struct Cell: Sendable {
        var key: UInt64 // cell key + 1; 0 = empty bucket
        var start: Int32
        var end: Int32
    }

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

    /// ⌊v⌋ without a libm call (the baseline x86-64 target has no rounding instruction);
    /// `v` must be well within `Int`'s range, as cell coordinates are.
    @inline(__always) static func floorInt(_ v: Double) -> Int {
        let i = Int(v)
        return Double(i) > v ? i - 1 : i
    }

    /// Number of cells around the globe (x) and from pole to pole (y) at each level.
    /// (Computed, not a table: a static table costs a lazy-initialisation check per query.
    /// Up to level 11 (10 for rows) the count is 360 · 256 (180 · 256) halved per level, exactly.)
    @inline(__always) static func columns(_ level: Int) -> Int {
        level <= 11 ? 92_160 >> level : Int((360 / cellSize(level: level)).rounded(.up))
    }
    @inline(__always) static func rows(_ level: Int) -> Int {
        level <= 10 ? 46_080 >> level : Int((180 / cellSize(level: level)).rounded(.up))
    }

    /// Calls `body(key, x, y)` for every cell of `level` that the box touches (x wrapped).
    @inline(__always)
    static func forEachCell(
        level: Int, minLat: Double, maxLat: Double, minLon: Double,
        maxLon: Double, _ body: (UInt64, Int, Int) -> Void
    ) {
        let inv = 1 / cellSize(level: level) // a power of two: exact
        let nx = columns(level)
        let ny = rows(level)
        let y0 = max(0, floorInt((minLat + 90) * inv))
        let y1 = min(ny - 1, floorInt((maxLat + 90) * inv))
        var x0 = floorInt((minLon + 180) * inv)
        var x1 = floorInt((maxLon + 180) * inv)
        if x1 - x0 + 1 >= nx {
            x0 = 0
            x1 = nx - 1
        }
        if y0 > y1 { return }
        for x in x0...x1 {
            var xx = x % nx
            if xx < 0 { xx += nx }
            // The column's key bits are computed once, outside the row loop: composing the
            // whole key inside it came out wrong in release builds (rows after the first got
            // a key of just `y`, so dynamically inserted regions vanished from those cells).
            // RegionIndexKeyTests checks this contract.
            let column = key(level: level, x: xx, y: 0)
            for y in y0...y1 { body(column | UInt64(y), xx, y) }
        }
    }

    @inline(__always) static func quantDown(_ v: Double) -> UInt16 {
        let q = v * 65_536
        return q <= 0 ? 0 : q >= 65_535 ? 65_535 : UInt16(truncatingIfNeeded: Int(q))
    }

    @inline(__always) static func quantUp(_ v: Double) -> UInt16 {
        let q = v * 65_536
        if q <= 0 { return 0 }
        if q >= 65_535 { return 65_535 }
        let i = Int(q)
        return UInt16(truncatingIfNeeded: Double(i) < q ? i + 1 : i)
    }

    /// The entry for `slot` in cell (`level`, `x`, `y`): its box clipped to the cell.
    static func entry(slot: Int32, box: GeoBox, level: Int, x: Int, y: Int) -> Entry {
        let c = cellSize(level: level)
        if level >= firstCoarseLevel || box.minLon < -180 + c || box.maxLon > 180 - c {
            return Entry(slot: slot, x0: 0, x1: 65_535, y0: 0, y1: 65_535)
        }
        let ox = -180 + Double(x) * c
        let oy = -90 + Double(y) * c
        return Entry(
            slot: slot,
            x0: quantDown((box.minLon - ox) / c), x1: quantUp((box.maxLon - ox) / c),
            y0: quantDown((box.minLat - oy) / c), y1: quantUp((box.maxLat - oy) / c))
    }

    // Static part.
    private var table = [Cell](repeating: Cell(key: 0, start: 0, end: 0), count: 2)
    private var tableMask = 1
    /// 64 − log2(table size): ``hash(_:shift:)`` keeps the product's top bits.
    private var tableShift = 63
    private var entries: [Entry] = []
    // Dynamic part.
    private var overflow: [UInt64: [Entry]] = [:]
    private(set) var overflowCount = 0
    private(set) var staleCount = 0
    private var levelCounts = [Int](repeating: 0, count: RegionIndex.levelCount) {
        didSet {
            var m: UInt32 = 0
            for l in levelCounts.indices where levelCounts[l] > 0 { m |= 1 << UInt32(l) }
            levelMask = m
        }
    }
    /// Bit `l` set when level `l` holds any region.
    private var levelMask: UInt32 = 0
    private(set) var staticRegionCount = 0
    /// Which level each region goes into, chosen at each rebuild (see ``rebuild(slots:boxes:)``).
    private(set) var placement = Placement(base: 0, reach: 0)

    /// Where regions go: a region whose natural level (the finest whose cell is at least as
    /// large as its box) is at most `base + reach` goes into level `base` — lifted when its
    /// natural level is finer, lowered (spanning up to (2^reach + 1)² cells) when coarser —
    /// and a larger region into its natural level. Fewer populated levels mean fewer
    /// probes per query; a finer level means shorter cells to scan but more entries.
    struct Placement: Sendable, Equatable {
        var base: Int
        var reach: Int
        @inline(__always) func level(natural: Int) -> Int { natural <= base + reach ? base : natural }
    }

    /// The most levels a region is lowered by (it then spans up to 5 × 5 cells).
    static let maximumReach = 2
    /// The most index entries per region a lowered placement may take (12 bytes each).
    static let maximumEntriesPerRegion = 8

    /// Over sorted packed (key, index) pairs: the number of distinct cells, and the expected
    /// work of a point query in entry scans — for each populated level, one bucket probe
    /// (counted as ``probeCost`` entries) plus the average run of its occupied cells.
    static func cellStats(_ packed: [UInt64]) -> (cells: Int, queryCost: Double) {
        var cells = [Int](repeating: 0, count: levelCount)
        var ents = [Int](repeating: 0, count: levelCount)
        var last = UInt64.max
        for p in packed {
            let k = p >> slotBits
            let l = Int(k >> 33)
            if k != last {
                cells[l] += 1
                last = k
            }
            ents[l] += 1
        }
        var cost = 0.0
        for l in 0..<levelCount where cells[l] > 0 { cost += probeCost + Double(ents[l]) / Double(cells[l]) }
        return (cells.reduce(0, +), cost)
    }

    /// A bucket probe (usually a cache miss) counted in entry scans (about a nanosecond each).
    static let probeCost = 8.0

    init() {}

    /// Whether enough has changed since the last bulk build that a rebuild pays off.
    var needsRebuild: Bool {
        let limit = max(4_096, staticRegionCount / 4)
        return overflowCount > limit || staleCount > limit
    }

    /// Rebuilds the static part from scratch for the given (slot, box) pairs.
    mutating func rebuild(_ regions: some Sequence<(Int32, GeoBox)>) {
        var slots: [Int32] = []
        var boxes: [GeoBox] = []
        for (s, b) in regions {
            slots.append(s)
            boxes.append(b)
        }
        rebuild(slots: slots, boxes: boxes)
    }

    /// Rebuilds the static part from scratch: region `slots[i]` has box `boxes[i]`.
    mutating func rebuild(slots: [Int32], boxes: [GeoBox]) {
        var natural = [Int](repeating: 0, count: RegionIndex.levelCount)
        for b in boxes { natural[RegionIndex.level(for: b)] += 1 }
        // The median region's level, and the level holding 97 % of the regions: lifting
        // everything up to the latter leaves one probe per query for most data sets, which
        // pays as long as cells stay short (checked below, after packing).
        var median = 0
        var lifted = 0
        var below = 0
        for l in 0..<RegionIndex.levelCount {
            below += natural[l]
            if below * 2 < boxes.count { median = l + 1 }
            if below * 100 < boxes.count * 97 { lifted = l + 1 }
        }
        median = min(median, RegionIndex.levelCount - 1)
        let spread = min(lifted, RegionIndex.firstCoarseLevel - 1)
        lifted = min(max(lifted, median), RegionIndex.firstCoarseLevel - 1)
        func pack(_ placement: Placement) -> (packed: [UInt64], counts: [Int], cells: Int, cost: Double) {
            var packed: [UInt64] = []
            packed.reserveCapacity(slots.count * 3)
            var counts = [Int](repeating: 0, count: RegionIndex.levelCount)
            for i in boxes.indices {
                let box = boxes[i]
                let l = placement.level(natural: RegionIndex.level(for: box))
                counts[l] += 1
                RegionIndex.forEachCell(
                    level: l, minLat: box.minLat, maxLat: box.maxLat,
                    minLon: box.minLon, maxLon: box.maxLon
                ) { k, _, _ in
                    packed.append((k << RegionIndex.slotBits) | UInt64(i))
                }
            }
            RadixSort.sort(&packed)
            let stats = RegionIndex.cellStats(packed)
            return (packed, counts, stats.cells, stats.queryCost)
        }
        // 1. Everything lifted into the level of the 97th-percentile region: one probe per
        //    query, taken whenever its cells stay short (sparse data: the country).
        var best = (placement: Placement(base: lifted, reach: 0), built: pack(Placement(base: lifted, reach: 0)))
        if best.built.packed.count > RegionIndex.liftedCellLimit * best.built.cells {
            // 2. Dense data (the city): each region at its own level, the finer ones lifted to
            //    the median's; or everything up to the 97th percentile lowered one level
            //    below the median's (a region then spans up to 5 × 5 cells, but a query scans
            //    one short cell instead of two long ones). The cheaper query wins, within a
            //    memory budget of entries per region.
            if lifted > median {
                best = (Placement(base: median, reach: 0), pack(Placement(base: median, reach: 0)))
            }
            if median > 0 {
                let finer = Placement(
                    base: median - 1, reach: min(RegionIndex.maximumReach, max(1, spread - median + 1)))
                let built = pack(finer)
                if built.cost < best.built.cost,
                    built.packed.count <= RegionIndex.maximumEntriesPerRegion * boxes.count
                {
                    best = (finer, built)
                }
            }
        }
        placement = best.placement
        let (packed, counts, _, _) = best.built
        var ents: [Entry] = []
        ents.reserveCapacity(packed.count)
        HugePages.advise(&ents)
        var cellKeys: [UInt64] = []
        var starts: [Int32] = []
        var last = UInt64.max
        for p in packed {
            let k = p >> RegionIndex.slotBits
            let i = Int(truncatingIfNeeded: p & ((1 << RegionIndex.slotBits) - 1))
            if k != last {
                cellKeys.append(k)
                starts.append(Int32(ents.count))
                last = k
            }
            let level = Int(k >> 33)
            let x = Int((k >> 16) & 0x1_FFFF)
            let y = Int(k & 0xFFFF)
            ents.append(RegionIndex.entry(slot: slots[i], box: boxes[i], level: level, x: x, y: y))
        }
        starts.append(Int32(ents.count))
        var cap = 2
        while cap < 2 * cellKeys.count { cap <<= 1 }
        let shift = 64 - cap.trailingZeroBitCount
        var t: [Cell] = []
        t.reserveCapacity(cap)
        HugePages.advise(&t)
        t.append(contentsOf: repeatElement(Cell(key: 0, start: 0, end: 0), count: cap))
        for (ci, k) in cellKeys.enumerated() {
            var h = RegionIndex.hash(k, shift: shift)
            while t[h].key != 0 { h = (h + 1) & (cap - 1) }
            t[h] = Cell(key: k + 1, start: starts[ci], end: starts[ci + 1])
        }
        table = t
        tableMask = cap - 1
        tableShift = shift
        entries = ents
        overflow = [:]
        overflowCount = 0
        staleCount = 0
        levelCounts = counts
        staticRegionCount = slots.count
    }

    /// Adds one region to the dynamic part.
    mutating func insert(slot: Int32, box: GeoBox) {
        let l = placement.level(natural: RegionIndex.level(for: box))
        levelCounts[l] += 1
        overflowCount += 1
        RegionIndex.forEachCell(
            level: l, minLat: box.minLat, maxLat: box.maxLat,
            minLon: box.minLon, maxLon: box.maxLon
        ) { k, x, y in
            overflow[k, default: []].append(RegionIndex.entry(slot: slot, box: box, level: l, x: x, y: y))
        }
    }

    /// Records that a region was removed (its entries go stale until the next rebuild).
    mutating func noteRemoval() { staleCount += 1 }

    /// The home bucket of cell key `k` in a table of 2^(64 − `shift`) buckets: Fibonacci
    /// hashing, the top bits of `k` × 2^64/φ. Neighbouring cells' keys (a step in a low bit
    /// field) land spread out, and the table is at most half full, so a lookup reads 1.1
    /// buckets in the city benchmark and 1.2 in the country (the product's bits 20 and up,
    /// used before, clustered them: 3.2 and 3.7, and 25 on a sparse 600 km test grid).
    @inline(__always) static func hash(_ k: UInt64, shift: Int) -> Int {
        Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) &>> UInt64(shift))
    }

    /// Calls `visit` for every slot whose box may overlap the point grown by (`dLat`, `dLon`)
    /// degrees. A slot may be visited more than once when the grown point spans several
    /// cells, and stale (removed) slots are visited too: the caller filters.
    @inline(__always)
    func query(lat: Double, lon: Double, dLat: Double, dLon: Double, _ visit: (Int32) -> Void) {
        let hasOverflow = overflowCount > 0
        let wraps = dLon > 0 && (lon - dLon < -180 || lon + dLon > 180)
        var levels = levelMask
        while levels != 0 {
            let l = levels.trailingZeroBitCount
            levels &= levels - 1
            let c = RegionIndex.cellSize(level: l)
            let inv = 1 / c
            RegionIndex.forEachCell(
                level: l, minLat: lat - dLat, maxLat: lat + dLat,
                minLon: lon - dLon, maxLon: lon + dLon
            ) { k, x, y in
                let ox = -180 + Double(x) * c
                let oy = -90 + Double(y) * c
                var qx0 = RegionIndex.quantDown((lon - dLon - ox) * inv)
                var qx1 = RegionIndex.quantDown((lon + dLon - ox) * inv)
                if wraps {
                    qx0 = 0
                    qx1 = 65_535
                }
                let qy0 = RegionIndex.quantDown((lat - dLat - oy) * inv)
                let qy1 = RegionIndex.quantDown((lat + dLat - oy) * inv)
                forEachRun(inCell: k, overflow: hasOverflow) { run in
                    RegionIndex.scan(run, x0: qx0, x1: qx1, y0: qy0, y1: qy1, visit)
                }
            }
        }
    }

    /// Calls `visit` for the slot of every entry of `run` whose box overlaps the quantised
    /// rectangle [`x0`, `x1`] × [`y0`, `y1`]. Without a branch per entry: which entries
    /// overlap is as good as random, and a mispredicted branch costs more than testing all
    /// four sides. Matches are gathered 64 entries at a time, then visited.
    @inline(__always)
    static func scan(
        _ run: UnsafeBufferPointer<Entry>, x0: UInt16, x1: UInt16, y0: UInt16, y1: UInt16,
        _ visit: (Int32) -> Void
    ) {
        guard let base = run.baseAddress else { return }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { found in
            let out = found.baseAddress!
            var i = 0
            while i < run.count {
                let end = min(i + 64, run.count)
                var n = 0
                for j in i..<end {
                    let e = base[j]
                    out[n] = e.slot
                    let hit = (e.x1 >= x0 ? 1 : 0) & (e.x0 <= x1 ? 1 : 0) & (e.y1 >= y0 ? 1 : 0) & (e.y0 <= y1 ? 1 : 0)
                    n &+= hit
                }
                for j in 0..<n { visit(out[j]) }
                i = end
            }
        }
    }

    /// Calls `body` with cell `k`'s run of entries in the static part, then (when `overflow`
    /// is true) with its dynamic entries, if any.
    @inline(__always)
    private func forEachRun(inCell k: UInt64, overflow hasOverflow: Bool, _ body: (UnsafeBufferPointer<Entry>) -> Void)
    {
        let (h, _) = findBucket(k)
        if h >= 0 {
            let cell = table[h]
            entries.withUnsafeBufferPointer { entries in
                body(UnsafeBufferPointer(rebasing: entries[Int(cell.start)..<Int(cell.end)]))
            }
        }
        if hasOverflow, let more = overflow[k] {
            more.withUnsafeBufferPointer { body($0) }
        }
    }

    /// The bucket holding cell key `k` (−1 when the static part has no such cell), and how
    /// many buckets the linear probe read to decide.
    @inline(__always)
    private func findBucket(_ k: UInt64) -> (bucket: Int, probes: Int) {
        table.withUnsafeBufferPointer { table in
            var h = RegionIndex.hash(k, shift: tableShift)
            var probes = 1
            while true {
                let key = table[h].key
                if key == k + 1 { return (h, probes) }
                if key == 0 { return (-1, probes) }
                h = (h + 1) & tableMask
                probes += 1
            }
        }
    }

    /// A point query (no margin) that also computes a ``SafeRect`` around the point: calls
    /// `visit` for exactly the slots ``query(lat:lon:dLat:dLon:_:)`` visits with a zero
    /// margin (the entries whose box contains the point), and intersects `safe` with a
    /// rectangle that no other scanned entry's box overlaps (``SafeRect/empty`` when the
    /// point is off the grid). So for any point of the rectangle, a zero-margin query would
    /// visit a subset of the slots visited now.
    @inline(__always)
    func pointQuery(lat: Double, lon: Double, safe: inout SafeRect, _ visit: (Int32) -> Void) {
        let hasOverflow = overflowCount > 0
        var levels = levelMask
        while levels != 0 {
            let l = levels.trailingZeroBitCount
            levels &= levels - 1
            let c = RegionIndex.cellSize(level: l)
            let inv = 1 / c
            let y = RegionIndex.floorInt((lat + 90) * inv)
            guard y >= 0, y < RegionIndex.rows(l) else {
                safe = .empty
                continue
            }
            let nx = RegionIndex.columns(l)
            var x = RegionIndex.floorInt((lon + 180) * inv) % nx
            if x < 0 { x += nx }
            let k = RegionIndex.key(level: l, x: x, y: y)
            let ox = -180 + Double(x) * c
            let oy = -90 + Double(y) * c
            let qx = Int(RegionIndex.quantDown((lon - ox) * inv))
            let qy = Int(RegionIndex.quantDown((lat - oy) * inv))
            // The free rectangle in this cell. Scanned in a closure expression, not through a
            // local function: a local function's captured variables were checked for
            // exclusive access at run time, per entry.
            var free = FreeCellRect()
            forEachRun(inCell: k, overflow: hasOverflow) { run in
                for e in run {
                    if Int(e.x1) >= qx, Int(e.x0) <= qx, Int(e.y1) >= qy, Int(e.y0) <= qy {
                        visit(e.slot)
                    } else {
                        free.exclude(e, qx: qx, qy: qy)
                    }
                }
            }
            let rx0 = free.x0
            let rx1 = free.x1
            let ry0 = free.y0
            let ry1 = free.y1
            // Pull every edge in by one step: [rx0 + 1, rx1) in steps, so a later point
            // in the rectangle quantises into [rx0, rx1] despite rounding.
            if rx1 - rx0 < 2 || ry1 - ry0 < 2 {
                safe = .empty
            } else {
                let step = c / 65_536
                safe.formIntersection(
                    SafeRect(
                        minLat: oy + Double(ry0 + 1) * step, maxLat: oy + Double(ry1) * step,
                        minLon: ox + Double(rx0 + 1) * step, maxLon: ox + Double(rx1) * step))
            }
        }
    }

    /// Buckets a point query at (`lat`, `lon`) reads before it finds (or misses) its cell,
    /// summed over the populated levels (at least one per level). For tests of the hash.
    func bucketProbes(lat: Double, lon: Double) -> Int {
        var n = 0
        var levels = levelMask
        while levels != 0 {
            let l = levels.trailingZeroBitCount
            levels &= levels - 1
            guard let k = RegionIndex.pointKey(level: l, lat: lat, lon: lon) else { continue }
            n += findBucket(k).probes
        }
        return n
    }

    /// Populated levels (one bucket lookup each per point query).
    var populatedLevelCount: Int { levelMask.nonzeroBitCount }

    /// The static part, read-only, for prefetching ahead of queries (see
    /// ``PrefetchView``); it holds its own references to the index's buffers.
    var prefetchView: PrefetchView {
        PrefetchView(table: table, entries: entries, tableShift: tableShift, levels: levelMask)
    }

    /// A read-only copy of an index's static part (its buffers are shared, not copied) that
    /// starts loading the memory a point query will read, without waiting for it. Batch
    /// processing uses it a few fixes ahead of the queries; holding the buffers itself, it
    /// can be used while the engine that owns the index is being mutated.
    struct PrefetchView {
        let table: [Cell]
        let entries: [Entry]
        let tableShift: Int
        let levels: UInt32

        /// The hash buckets that a point query at (`lat`, `lon`) begins with.
        @inline(__always)
        func prefetchBuckets(lat: Double, lon: Double) {
            table.withUnsafeBufferPointer { table in
                guard let base = table.baseAddress else { return }
                // The home bucket and the next three (a probe rarely goes further).
                forEachPointKey(lat: lat, lon: lon) { k in
                    prefetch(
                        UnsafeRawPointer(base + RegionIndex.hash(k, shift: tableShift)),
                        bytes: RegionIndex.prefetchedProbes * MemoryLayout<Cell>.stride)
                }
            }
        }

        /// One step further than ``prefetchBuckets(lat:lon:)`` (whose buckets should be
        /// cached by now): the entries of the cells a point query at (`lat`, `lon`) will
        /// scan, up to ``RegionIndex/prefetchedRunBytes`` per cell.
        @inline(__always)
        func prefetchEntries(lat: Double, lon: Double) {
            table.withUnsafeBufferPointer { table in
                entries.withUnsafeBufferPointer { entries in
                    guard let base = entries.baseAddress else { return }
                    forEachPointKey(lat: lat, lon: lon) { k in
                        // The probe sequence as far as the buckets prefetched a stage ago.
                        var h = RegionIndex.hash(k, shift: tableShift)
                        var probes = 1
                        while table[h].key != k + 1 {
                            guard table[h].key != 0, probes < RegionIndex.prefetchedProbes else { return }
                            h = (h + 1) & (table.count - 1)
                            probes += 1
                        }
                        let cell = table[h]
                        guard cell.start < cell.end else { return }
                        prefetch(
                            UnsafeRawPointer(base + Int(cell.start)),
                            bytes: min(
                                (Int(cell.end) - Int(cell.start)) * MemoryLayout<Entry>.stride,
                                RegionIndex.prefetchedRunBytes))
                    }
                }
            }
        }

        /// Calls `body` with the key of the point's cell on every populated level; nothing for
        /// a coordinate out of range or NaN (the batch prefetches fixes not yet validated).
        @inline(__always)
        private func forEachPointKey(lat: Double, lon: Double, _ body: (UInt64) -> Void) {
            guard abs(lat) <= 90, abs(lon) <= 540 else { return }
            var levels = levels
            while levels != 0 {
                let l = levels.trailingZeroBitCount
                levels &= levels - 1
                if let k = RegionIndex.pointKey(level: l, lat: lat, lon: lon) { body(k) }
            }
        }
    }

    /// How many buckets of a point's probe sequence the batch prefetches (from its home bucket).
    static let prefetchedProbes = 4

    /// The most bytes of a cell's run that ``PrefetchView/prefetchEntries(lat:lon:)`` asks for.
    static let prefetchedRunBytes = 512

    /// The key of the cell of `level` holding the point (as ``forEachCell`` computes it), or
    /// `nil` for a point on the north pole's edge row.
    @inline(__always)
    static func pointKey(level: Int, lat: Double, lon: Double) -> UInt64? {
        let inv = 1 / cellSize(level: level)
        let nx = columns(level)
        let ny = rows(level)
        let y = floorInt((lat + 90) * inv)
        guard y >= 0, y < ny else { return nil }
        var x = floorInt((lon + 180) * inv) % nx
        if x < 0 { x += nx }
        return key(level: level, x: x, y: y)
    }

    /// Approximate heap bytes held by the index.
    var memoryBytes: Int {
        table.capacity * MemoryLayout<Cell>.stride + entries.capacity * MemoryLayout<Entry>.stride
            + overflow.count * 64 + overflowCount * 3 * MemoryLayout<Entry>.stride
    }
}

/// The free rectangle of a point query in one cell, in quantisation steps (inclusive): the
/// part of the cell around the point that no scanned entry's box overlaps.
struct FreeCellRect {
    var x0 = 0
    var x1 = 65_535
    var y0 = 0
    var y1 = 65_535

    /// Cuts the box of `e` (which does not contain the point (`qx`, `qy`)) away, on the side
    /// that keeps the most area (at least one side applies).
    @inline(__always)
    mutating func exclude(_ e: RegionIndex.Entry, qx: Int, qy: Int) {
        let ex0 = Int(e.x0)
        let ex1 = Int(e.x1)
        let ey0 = Int(e.y0)
        let ey1 = Int(e.y1)
        if ex1 < x0 || ex0 > x1 || ey1 < y0 || ey0 > y1 { return }
        let w = x1 - x0 + 1
        let h = y1 - y0 + 1
        var best = -1
        var cut = 0
        if ex1 < qx, (x1 - ex1) * h > best {
            best = (x1 - ex1) * h
            cut = 0
        }
        if ex0 > qx, (ex0 - x0) * h > best {
            best = (ex0 - x0) * h
            cut = 1
        }
        if ey1 < qy, (y1 - ey1) * w > best {
            best = (y1 - ey1) * w
            cut = 2
        }
        if ey0 > qy, (ey0 - y0) * w > best {
            best = (ey0 - y0) * w
            cut = 3
        }
        switch cut {
        case 0: x0 = ex1 + 1
        case 1: x1 = ex0 - 1
        case 2: y0 = ey1 + 1
        default: y1 = ey0 - 1
        }
    }
}
