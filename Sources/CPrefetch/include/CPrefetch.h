#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Asks the CPU to start loading the cache line holding `address` (for reading, to be kept
/// in every cache level), without waiting for it. A hint: it never faults and has no effect
/// on the program's results, so `address` may point anywhere, even at freed memory.
///
/// Swift has no prefetch intrinsic; reading the memory instead would make the CPU wait for
/// each miss at retirement, which limits how many misses can be in flight at once.
static inline __attribute__((always_inline)) void cprefetch_read(const void *_Nullable address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
