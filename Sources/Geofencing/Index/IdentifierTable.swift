// Open-addressing hash table from region identifier to slot. Stores only 4-byte buckets
// (the identifiers live once, in `RegionStore.ids`), which keeps the per-region overhead at
// ~8 bytes instead of the ~40 of a `[String: Int32]`. A bucket holds the slot (26 bits) and
// 5 more bits of the identifier's hash, so a probe reads an identifier (a likely cache miss)
// only when those bits match too.
struct IdentifierTable: Sendable {
    private static let empty: Int32 = -1
    private static let deleted: Int32 = -2
    private static let slotBits: Int32 = 26
    private static let slotMask: Int32 = (1 << 26) - 1
    private var buckets: [Int32] = Array(repeating: IdentifierTable.empty, count: 16)
    private var used = 0 // live + deleted buckets
    private(set) var count = 0

    private var mask: Int { buckets.count - 1 }

    /// The bucket's value for `slot` of an identifier with hash `h`.
    @inline(__always) private static func packed(_ slot: Int32, _ h: Int) -> Int32 {
        slot | (Int32(truncatingIfNeeded: (h >> 58) & 31) << slotBits)
    }

    @inline(__always) private static func tagMatches(_ bucket: Int32, _ h: Int) -> Bool {
        bucket >> slotBits == Int32(truncatingIfNeeded: (h >> 58) & 31)
    }

    func find(_ id: String, in ids: [String]) -> Int32? {
        let h = id.hashValue
        var i = h & mask
        while true {
            let b = buckets[i]
            if b == IdentifierTable.empty { return nil }
            if b >= 0, IdentifierTable.tagMatches(b, h) {
                let s = b & IdentifierTable.slotMask
                if ids[Int(s)] == id { return s }
            }
            i = (i + 1) & mask
        }
    }

    /// Inserts `slot` for `ids[slot]`, which must not be present yet.
    mutating func insert(slot: Int32, in ids: [String]) {
        _ = insertIfAbsent(slot: slot, in: ids)
    }

    /// Inserts `slot` for `ids[slot]` unless another slot already has that identifier;
    /// returns whether it was inserted (one hash and one probe sequence for both).
    mutating func insertIfAbsent(slot: Int32, in ids: [String]) -> Bool {
        if (used + 1) * 2 > buckets.count { grow(ids: ids) }
        let id = ids[Int(slot)]
        let h = id.hashValue
        var i = h & mask
        var free = -1
        while true {
            let b = buckets[i]
            if b == IdentifierTable.empty { break }
            if b == IdentifierTable.deleted {
                if free < 0 { free = i }
            } else if IdentifierTable.tagMatches(b, h), ids[Int(b & IdentifierTable.slotMask)] == id {
                return false
            }
            i = (i + 1) & mask
        }
        if free >= 0 { i = free } else { used += 1 }
        buckets[i] = IdentifierTable.packed(slot, h)
        count += 1
        return true
    }

    mutating func remove(_ id: String, in ids: [String]) {
        let h = id.hashValue
        var i = h & mask
        while true {
            let b = buckets[i]
            if b == IdentifierTable.empty { return }
            if b >= 0, IdentifierTable.tagMatches(b, h), ids[Int(b & IdentifierTable.slotMask)] == id {
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
        used = 0
        count = 0
        for b in old where b >= 0 {
            let s = b & IdentifierTable.slotMask
            let h = ids[Int(s)].hashValue
            var i = h & (cap - 1)
            while buckets[i] >= 0 { i = (i + 1) & (cap - 1) }
            buckets[i] = IdentifierTable.packed(s, h)
            used += 1
            count += 1
        }
    }

    var memoryBytes: Int { buckets.capacity * 4 }
}
