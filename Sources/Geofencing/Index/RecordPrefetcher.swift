import CPrefetch

/// Asks the CPU to start loading region records before the engine reads them, so that their
/// cache misses overlap other work instead of stalling it one after another.
///
/// **Safety invariant**: the addresses are only ever passed to the prefetch instruction, never
/// read or written through. A prefetch of any address — stale, out of range, freed — has no
/// effect but a wasted memory request, so nothing here can read wrong data or fault; the
/// store's arrays are not even retained. Make one per evaluation (the store must not be
/// mutated while it is used, which only costs hint accuracy, never correctness).
struct RecordPrefetcher {
    private let hot: UnsafeRawPointer?
    private let ids: UnsafeRawPointer?

    init(_ store: RegionStore) {
        hot = store.hot.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        ids = store.ids.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// The hot record of region slot `s` (what a distance and the rule read).
    @inline(__always)
    func record(_ s: Int32) {
        let stride = MemoryLayout<RegionStore.Hot>.stride
        if let hot { prefetch(hot + Int(s) * stride, bytes: stride) }
    }

    /// The identifier of region slot `s` (what an event needs).
    @inline(__always)
    func identifier(_ s: Int32) {
        if let ids { cprefetch_read(ids + Int(s) * MemoryLayout<String>.stride) }
    }
}
