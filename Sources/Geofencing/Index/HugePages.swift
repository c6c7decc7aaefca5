#if canImport(Glibc)
import Glibc
#endif

/// Large arrays read at random — the region records, the index's cells and entries — asked
/// to be backed by huge pages (Linux transparent huge pages, which most distributions
/// enable in `madvise` mode: only for memory that asks).
///
/// A fix reads one or two cache lines from each of a few such arrays; with 4 KiB pages a
/// country's 100 MB of them span 25,000 pages, far more than the TLB covers, so nearly every
/// one of those reads also walks the page table. 2 MiB pages cut the country replay's time
/// per fix by about 5 % (docs/performance.md). The advice is given right after the array's
/// storage is reserved, before it is written, so that the first writes fault in huge pages;
/// it changes nothing but speed, and it is not given elsewhere, or for small arrays.
enum HugePages {
    /// Arrays smaller than this are left alone (a huge page is 2 MiB).
    static let minimumBytes = 4 << 20

    /// Advises huge pages for `array`'s reserved storage (its whole capacity).
    static func advise<T>(_ array: inout [T]) {
        #if canImport(Glibc)
        let bytes = array.capacity * MemoryLayout<T>.stride
        guard bytes >= minimumBytes else { return }
        array.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let page = UInt(4_096)
            let start = (UInt(bitPattern: base) + page - 1) & ~(page - 1)
            let end = (UInt(bitPattern: base) + UInt(bytes)) & ~(page - 1)
            guard end > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
            _ = madvise(p, Int(end - start), MADV_HUGEPAGE)
        }
        #endif
    }
}
