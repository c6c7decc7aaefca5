import CPrefetch

/// Requests every cache line of `bytes` bytes from `start` (a prefetch hint per 64-byte
/// line, and one for the last byte so a range straddling a line end is covered). A hint
/// never faults and is never waited for.
@inline(__always)
func prefetch(_ start: UnsafeRawPointer, bytes: Int) {
    guard bytes > 0 else { return }
    var offset = 0
    while offset < bytes {
        cprefetch_read(start + offset)
        offset += 64
    }
    cprefetch_read(start + (bytes - 1))
}
