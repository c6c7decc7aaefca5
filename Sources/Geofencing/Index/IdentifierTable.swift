// Open-addressing hash table from region identifier to slot. Stores only 4-byte slot
// numbers (the identifiers live once, in `RegionStore.ids`), which keeps the per-region
// overhead at ~8 bytes instead of the ~40 of a `[String: Int32]`.
struct IdentifierTable: Sendable {
    private static let empty: Int32 = -1
    private static let deleted: Int32 = -2
    private var buckets: [Int32] = Array(repeating: IdentifierTable.empty, count: 16)
    private var used = 0          // live + deleted buckets
    private(set) var count = 0

    private var mask: Int { buckets.count - 1 }

    func find(_ id: String, in ids: [String]) -> Int32? {
        var i = id.hashValue & mask
        while true {
            let s = buckets[i]
            if s == IdentifierTable.empty { return nil }
            if s >= 0, ids[Int(s)] == id { return s }
            i = (i + 1) & mask
        }
    }

    /// Inserts `slot` for `ids[slot]`, which must not be present yet.
    mutating func insert(slot: Int32, in ids: [String]) {
        if (used + 1) * 2 > buckets.count { grow(ids: ids) }
        var i = ids[Int(slot)].hashValue & mask
        while buckets[i] >= 0 { i = (i + 1) & mask }
        if buckets[i] == IdentifierTable.empty { used += 1 }
        buckets[i] = slot
        count += 1
    }

    mutating func remove(_ id: String, in ids: [String]) {
        var i = id.hashValue & mask
        while true {
            let s = buckets[i]
            if s == IdentifierTable.empty { return }
            if s >= 0, ids[Int(s)] == id {
                buckets[i] = IdentifierTable.deleted
                count -= 1
                return
            }
            i = (i + 1) & mask
        }
    }

    mutating func reserve(_ n: Int, ids: [String]) {
        if (used + n) * 2 > buckets.count { rebuild(capacityFor: count + n, ids: ids) }
    }

    private mutating func grow(ids: [String]) { rebuild(capacityFor: max(count + 1, used), ids: ids) }

    private mutating func rebuild(capacityFor n: Int, ids: [String]) {
        var cap = 16
        while cap < n * 2 + 2 { cap <<= 1 }
        let old = buckets
        buckets = Array(repeating: IdentifierTable.empty, count: cap)
        used = 0; count = 0
        for s in old where s >= 0 {
            var i = ids[Int(s)].hashValue & (cap - 1)
            while buckets[i] >= 0 { i = (i + 1) & (cap - 1) }
            buckets[i] = s
            used += 1; count += 1
        }
    }

    var memoryBytes: Int { buckets.capacity * 4 }
}
