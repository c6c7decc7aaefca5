import Geodesy

/// What the positions of a run of fixes decide on their own, worked out before the engine
/// takes them: for each fix, the index entries whose box contains it (what a zero-margin
/// query visits), with the signed distances of their regions.
///
/// None of it depends on a subject's state, so it can be measured on another thread while the
/// engine works through earlier fixes (``RegionGeometry/measure(_:)``): one subject's index
/// queries and distances on one core, its transitions on another. The engine takes a fix's
/// measurement only where it would have made that very query and measured the same regions
/// itself, so the events are exactly those without it
/// (``Engine/process(_:subjects:measured:initialTrigger:into:)``).
public struct FixGeometry: Sendable {
    /// The regions as they stood when measured: a measurement of other regions is ignored.
    let generation: CatalogueGeneration
    /// Fix i's entries are `entries[offset(i)..<offset(i + 1)]`, in slot order. `starts[i]`
    /// is the offset, or −offset − 1 where fix i was not measured (a position the engine
    /// rejects): the engine then measures it itself.
    var starts: [Int]
    var entries: [MeasuredEntry]
    /// Fix i's point on the ellipsoid (unused where it was not measured).
    var points: [CartesianPoint]

    /// How many fixes it covers, measured or not.
    public var count: Int { starts.count - 1 }

    /// Calls `body` with a function giving fix i's measurement, read in place (valid only
    /// during `body`).
    @inline(__always)
    func withFixes<R>(
        _ body: ((Int) -> MeasuredFix?) throws(GeofencingError) -> R
    ) throws(GeofencingError) -> R {
        try starts.withUnsafeBufferPointer { (starts) throws(GeofencingError) in
            try entries.withUnsafeBufferPointer { (entries) throws(GeofencingError) in
                try points.withUnsafeBufferPointer { (points) throws(GeofencingError) in
                    try body { i in
                        let start = starts[i]
                        guard start >= 0 else { return nil }
                        let next = starts[i + 1]
                        let end = next >= 0 ? next : -next - 1
                        return MeasuredFix(
                            entries: UnsafeBufferPointer(rebasing: entries[start..<end]), point: points[i])
                    }
                }
            }
        }
    }
}

/// An index entry of a measured fix: a region's slot and its signed distance from the fix,
/// NaN for the stale entry of a removed region (never inside, so the engine drops it as it
/// drops a stale entry of the index, without reading the region's record).
struct MeasuredEntry {
    var slot: Int32
    var sd: Double
}

/// A read-only view of an engine's regions that measures fixes (``FixGeometry``) on any
/// thread. It shares the engine's storage without copying it: processing fixes never changes
/// the regions, and an engine whose regions did change ignores measurements of the old ones.
public struct RegionGeometry: Sendable {
    let index: RegionIndex
    let store: RegionStore
    let generation: CatalogueGeneration

    /// Measures `fixes` in order.
    public func measure(_ fixes: ArraySlice<LocationFix>) -> FixGeometry {
        var starts = [Int](repeating: 0, count: fixes.count + 1)
        var points = [CartesianPoint](repeating: CartesianPoint(x: 0, y: 0, z: 0), count: fixes.count)
        // Room for 16 entries a fix of a chunk; more grows the list as needed.
        var storage = ScratchStorage<MeasuredEntry>(capacity: 16 * min(max(fixes.count, 4), 4_096))
        var entries = ScratchList(taking: &storage)
        defer { entries.give(back: &storage) }
        starts.withUnsafeMutableBufferPointer { starts in
            for (i, fix) in fixes.enumerated() {
                let p = fix.coordinate
                let first = entries.count
                // Not measured: positions the engine rejects before any query, and longitudes
                // it wraps (left to the engine).
                if p.latitude.isFinite, p.longitude.isFinite, abs(p.latitude) <= 90, abs(p.longitude) <= 180 {
                    points[i] = measure(p, into: &entries)
                    starts[i] = first
                } else {
                    starts[i] = -first - 1
                }
                starts[i + 1] = entries.count
            }
        }
        return FixGeometry(generation: generation, starts: starts, entries: Array(entries.buffer), points: points)
    }

    /// Appends the entries of a zero-margin query at `p`, measured and in slot order, and
    /// returns `p`'s point on the ellipsoid.
    @inline(__always)
    private func measure(_ p: Coordinate, into entries: inout ScratchList<MeasuredEntry>) -> CartesianPoint {
        let first = entries.count
        index.query(lat: p.latitude, lon: p.longitude, dLat: 0, dLon: 0) { slot in
            entries.append(MeasuredEntry(slot: slot, sd: .nan))
        }
        let cart = CartesianPoint(p)
        for k in first..<entries.count {
            let s = Int(entries[k].slot)
            if store.isAlive(s) { entries[k].sd = store.signedDistance(s, to: p, cartesian: cart) }
        }
        // The index lists a cell's entries in slot order already: one pass unless several
        // grid levels hold regions at the point.
        entries.insertionSort(from: first + 1, floor: first) { $0.slot }
        return cart
    }
}

extension Engine {
    /// A view of the regions for measuring fixes on another thread (``FixGeometry``).
    public var geometry: RegionGeometry {
        RegionGeometry(index: index, store: store, generation: catalogueGeneration)
    }
}

/// One fix's measurement, read in place by the engine.
///
/// Invariant: the buffer lies in a ``FixGeometry`` that the batch call holds (and reads
/// through `withUnsafeBufferPointer`) for as long as the engine evaluates the fix.
struct MeasuredFix {
    let entries: UnsafeBufferPointer<MeasuredEntry>
    /// `CartesianPoint` of the fix's coordinate.
    let point: CartesianPoint
}
