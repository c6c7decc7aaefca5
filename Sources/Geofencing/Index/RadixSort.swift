/// Least-significant-digit radix sort of 64-bit keys, 8 bits per pass; passes whose byte is
/// the same in every key are skipped. Index builds sort millions of packed
/// (cell, slot) keys, where this is several times faster than a comparison sort.
enum RadixSort {
    static func sort(_ keys: inout [UInt64]) {
        let n = keys.count
        if n < 512 {
            keys.sort()
            return
        }
        var counts = [Int](repeating: 0, count: 8 * 256)
        keys.withUnsafeBufferPointer { k in
            counts.withUnsafeMutableBufferPointer { c in
                for v in k {
                    for d in 0..<8 { c[d << 8 | Int((v >> UInt64(d * 8)) & 0xFF)] += 1 }
                }
            }
        }
        var other = [UInt64](repeating: 0, count: n)
        var inKeys = true // whether the current order is in `keys`
        for d in 0..<8 {
            let base = d << 8
            if counts[base | Int((keys[0] >> UInt64(d * 8)) & 0xFF)] == n { continue } // all equal
            var offsets = [Int](repeating: 0, count: 256)
            var sum = 0
            for b in 0..<256 {
                offsets[b] = sum
                sum += counts[base | b]
            }
            let shift = UInt64(d * 8)
            func pass(_ src: UnsafeBufferPointer<UInt64>, _ dst: UnsafeMutableBufferPointer<UInt64>) {
                offsets.withUnsafeMutableBufferPointer { o in
                    for v in src {
                        let b = Int((v >> shift) & 0xFF)
                        dst[o[b]] = v
                        o[b] += 1
                    }
                }
            }
            if inKeys {
                keys.withUnsafeBufferPointer { s in other.withUnsafeMutableBufferPointer { pass(s, $0) } }
            } else {
                other.withUnsafeBufferPointer { s in keys.withUnsafeMutableBufferPointer { pass(s, $0) } }
            }
            inKeys.toggle()
        }
        if !inKeys { keys = other }
    }
}
