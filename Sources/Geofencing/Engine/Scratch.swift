/// Memory the engine keeps for one evaluation's lists (the candidates, the tracks being
/// evaluated), so that a fix allocates nothing and its hot loops work through a plain
/// pointer: an `Array` write checks the buffer's uniqueness with an out-of-line runtime call,
/// and a track copied out of an array to be updated, and back, was about 80 instructions of
/// field moves (docs/performance.md).
///
/// An ``Engine`` is a value: a copy shares this object until one of them evaluates a fix,
/// which then takes a fresh one (``ScratchList/init(taking:)``), so no two engines ever
/// write to the same memory. The contents never outlive one evaluation.
final class ScratchStorage<Element>: @unchecked Sendable {
    let base: UnsafeMutablePointer<Element>
    let capacity: Int

    init(capacity: Int) {
        precondition(_isPOD(Element.self), "scratch lists hold plain values only")
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    /// Takes ownership of `base` (allocated with `capacity` elements).
    init(adopting base: UnsafeMutablePointer<Element>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    deinit { base.deallocate() }
}

/// A growable list of plain values over a ``ScratchStorage``: no uniqueness checks, no
/// bounds checks in release builds (debug builds assert them). When it outgrows the
/// storage it moves to memory of its own, which the engine adopts when the list is given
/// back (``give(back:)``).
struct ScratchList<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var capacity: Int
    /// Whether `base` is memory of this list's own (allocated when it grew).
    private(set) var ownsBase = false
    private(set) var count = 0

    /// An empty list over `storage`, replaced first by a fresh one if another engine value
    /// shares it.
    @inline(__always)
    init(taking storage: inout ScratchStorage<Element>) {
        if !isKnownUniquelyReferenced(&storage) { storage = ScratchStorage(capacity: storage.capacity) }
        base = storage.base
        capacity = storage.capacity
    }

    /// Ends the list's use: if it grew, `storage` adopts its memory (the old one is freed).
    @inline(__always)
    func give(back storage: inout ScratchStorage<Element>) {
        if ownsBase { storage = ScratchStorage(adopting: base, capacity: capacity) }
    }

    var isEmpty: Bool { count == 0 }

    /// Keeps the first `n` elements.
    @inline(__always)
    mutating func truncate(to n: Int) {
        assert(n >= 0 && n <= count)
        count = n
    }

    subscript(i: Int) -> Element {
        @inline(__always) unsafeAddress {
            assert(i >= 0 && i < count)
            return UnsafePointer(base + i)
        }
        @inline(__always) nonmutating unsafeMutableAddress {
            assert(i >= 0 && i < count)
            return base + i
        }
    }

    @inline(__always)
    mutating func append(_ x: Element) {
        if count == capacity { grow(to: 2 * capacity) }
        (base + count).initialize(to: x)
        count += 1
    }

    /// Appends all of `elements` (one copy).
    mutating func append(contentsOf elements: UnsafeBufferPointer<Element>) {
        guard let src = elements.baseAddress, !elements.isEmpty else { return }
        if count + elements.count > capacity { grow(to: max(2 * capacity, count + elements.count)) }
        (base + count).initialize(from: src, count: elements.count)
        count += elements.count
    }

    @inline(__always)
    func contains(where predicate: (Element) -> Bool) -> Bool {
        var i = 0
        while i < count {
            if predicate(base[i]) { return true }
            i += 1
        }
        return false
    }

    /// The elements, valid until the list changes.
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    @inline(never)
    private mutating func grow(to newCapacity: Int) {
        let new = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        new.initialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = new
        capacity = newCapacity
        ownsBase = true
    }
}

extension ScratchList {
    /// Moves each element from `start` on into its place among those before it from `floor`
    /// on, in order of `key` (those in `floor..<start` must be in order already): a stable
    /// insertion sort, one comparison for each element already in place (the index's
    /// candidates come in slot order, the new tracks are few).
    @inline(__always)
    func insertionSort(from start: Int = 1, floor: Int = 0, by key: (Element) -> Int32) {
        var i = max(start, floor + 1)
        while i < count {
            let k = key(base[i])
            if k < key(base[i - 1]) {
                let x = base[i]
                var j = i
                while j > floor, key(base[j - 1]) > k {
                    base[j] = base[j - 1]
                    j -= 1
                }
                base[j] = x
            }
            i += 1
        }
    }
}
