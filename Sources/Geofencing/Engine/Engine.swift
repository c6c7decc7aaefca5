import Foundation
import Geodesy

/// The transition engine: regions in, location fixes in, confirmed enter / exit / dwell
/// events out.
///
/// Pure, synchronous and deterministic: time comes only from fix timestamps (and from the
/// times passed to ``advance(subject:to:)``), so the same input always gives the same events.
///
/// ```swift
/// var engine = Engine(policy: .precise)
/// try engine.add(.circle(identifier: "depot", center: depot, radius: 150, dwell: 300))
/// for fix in fixes {
///     for event in try engine.process(fix) { print(event.kind, event.regionID, event.crossedAt) }
/// }
/// engine.state(of: "truck-7", in: "depot")   // .inside / .outside / .unknown
/// ```
///
/// **Rules** (`TransitionRule`; docs/semantics.md has the numbers): a fix decides for a region
/// when it is past the boundary by 20 m + 2 × its accuracy (no better than the recent fixes');
/// a transition — and a subject's first state, set silently unless an ``InitialTrigger`` asks
/// for an event — needs such fixes for the policy's confirmation time, at least four of them;
/// any other usable fix cancels a pending transition; a fix too coarse for a region's size
/// decides nothing there. Adding a region whose identifier exists replaces it and resets
/// every subject's state in it.
///
/// **Performance**: regions live in a struct-of-arrays store (≈ 90 bytes per circle) under a
/// multi-level hashed grid (``RegionIndex``); a fix costs one hash lookup per populated grid
/// level, a box test per nearby region, and an exact distance only for regions whose box
/// contains it, plus the regions the subject is inside or pending in (which are always
/// re-evaluated, so a subject that jumps far away still gets its exit). Each plain query also
/// leaves the subject a *safe rectangle* that no other region's box overlaps: the subject's
/// next fixes inside it skip the index, and a subject settled deep inside the regions it
/// tracks skips their geometry too (docs/performance.md; exact, never a heuristic). Per-subject
/// memory is proportional to the regions it is not plainly outside of.
///
/// **Not here**: per-app region limits, authorisation, persistence and delivery belong to
/// `RegionMonitoring` and the server. An `Engine` is a value type for one task at a time.
public struct Engine: Sendable {
    /// The most regions one engine holds (slot numbers are packed into 26 bits).
    public static let maximumRegionCount = RegionIndex.maximumSlots

    /// The hysteresis rule; changing it applies to the next fix.
    public var policy: HysteresisPolicy {
        didSet {
            epoch &+= 1
            rule = TransitionRule(policy)
        }
    }
    /// The state machine every track goes through, with the policy's numbers.
    var rule: TransitionRule
    /// Moves on every region removal and policy change: subjects' settled shortcuts
    /// (``SubjectState/deep``) computed before are void.
    var epoch: UInt64 = 0

    /// The regions. Every change of them or of their stamps (``insertValidated(_:indexNow:)``,
    /// ``removeSlot(_:)``, a store replaced whole, a restore) replaces ``catalogueGeneration``.
    var store = RegionStore()
    /// The identity of the regions as they stand (``CatalogueGeneration``): what a
    /// ``SnapshotCache`` checks before it reuses its walk of the regions.
    var catalogueGeneration = CatalogueGeneration()
    var index = RegionIndex()
    var stampCounter: UInt64 = 0
    /// (stamp, slot) of regions whose initial trigger includes `.exit`, in stamp order.
    var initialExitLog: [(stamp: UInt64, slot: Int32)] = []
    var subjectIndex: [String: Int32] = [:]
    var subjectStates = SubjectTable()
    /// Whether fixes inside a subject's ``SafeRect`` skip the index (always, except in tests
    /// that compare against the plain query).
    var useSafeRects = true
    /// The most regions a subject's safe rectangle may overlap (more: no rectangle).
    static let safeSlotLimit = 16
    /// The longest pause, in fixes, in computing safe rectangles for a subject whose
    /// rectangles keep missing (e.g. in dense city regions, where a fix is inside a dozen
    /// boxes and the rectangle is a few metres wide).
    static let maximumRectPause: UInt16 = 64
    /// How many fixes were answered from their subject's safe rectangle (tests and
    /// benchmarks read it).
    var safeRectHits = 0
    /// How many of those also skipped their tracks (``skipSettled(subject:fix:time:events:)``).
    var settledSkips = 0
    /// How many fixes took their candidates from a measurement made ahead (``FixGeometry``).
    var measuredFixesTaken = 0
    /// Reused memory for the candidates and the tracks of one fix (``ScratchList``).
    var candidateScratch = ScratchStorage<Candidate>(capacity: 64)
    var trackScratch = ScratchStorage<Track>(capacity: 64)

    struct Candidate {
        var slot: Int32
        var sd: Double
        var used: Bool
    }

    /// Creates an empty engine.
    public init(policy: HysteresisPolicy = .precise) {
        self.policy = policy
        rule = TransitionRule(policy)
    }

    // MARK: Regions

    /// Adds a region, or replaces the region with the same identifier (every subject's state
    /// in it is reset to `unknown`, as Core Location does).
    /// - Throws: ``GeofencingError/invalidRegion(identifier:field:reason:)`` naming the bad
    ///   field, or ``GeofencingError/tooManyRegions(limit:)``; the engine is unchanged then.
    public mutating func add(_ region: Region) throws(GeofencingError) {
        try region.validate()
        let replacing = store.slot(of: region.identifier)
        if replacing == nil, store.liveCount >= Engine.maximumRegionCount {
            throw .tooManyRegions(limit: Engine.maximumRegionCount)
        }
        if let old = replacing { removeSlot(old) }
        insertValidated(region)
        if index.needsRebuild { rebuildIndex() }
    }

    /// Adds many regions at once (all or nothing), replacing existing ones with the same
    /// identifiers. Much faster than repeated ``add(_:)`` for large sets: the index is built
    /// in bulk.
    /// - Throws: the first invalid region's error, or
    ///   ``GeofencingError/duplicateIdentifier(_:)`` if an identifier appears twice in
    ///   `regions`; nothing is added then.
    public mutating func add(contentsOf regions: some Collection<Region>) throws(GeofencingError) {
        let array = Array(regions)
        for r in array { try r.validate() }
        let bulk = array.count > max(1_000, store.liveCount / 8)
        if bulk, store.liveCount == 0 {
            try addToEmpty(array)
            return
        }
        var seen = Set<String>()
        seen.reserveCapacity(array.count)
        var newCount = 0
        for r in array {
            if !seen.insert(r.identifier).inserted { throw .duplicateIdentifier(r.identifier) }
            if store.slot(of: r.identifier) == nil { newCount += 1 }
        }
        if store.liveCount + newCount > Engine.maximumRegionCount {
            throw .tooManyRegions(limit: Engine.maximumRegionCount)
        }
        store.reserve(newCount)
        let order = bulk ? Engine.gridOrder(array) : Array(array.indices)
        for i in order {
            let r = array[i]
            if let old = store.slot(of: r.identifier) { removeSlot(old) }
            insertValidated(r, indexNow: !bulk)
        }
        if bulk || index.needsRebuild { rebuildIndex() }
    }

    /// Bulk load into an engine without regions: a fresh store in grid order, duplicates
    /// detected while inserting (the engine is left as it was if one is found).
    private mutating func addToEmpty(_ array: [Region]) throws(GeofencingError) {
        if array.count > Engine.maximumRegionCount { throw .tooManyRegions(limit: Engine.maximumRegionCount) }
        var fresh = RegionStore()
        fresh.reserve(array.count)
        var stamp = stampCounter
        var exits: [(stamp: UInt64, slot: Int32)] = []
        var boxes: [GeoBox] = []
        boxes.reserveCapacity(array.count)
        for i in Engine.gridOrder(array) {
            let r = array[i]
            stamp += 1
            let (slot, box, added) = fresh.insertUnlessDuplicate(r, stamp: stamp)
            if !added { throw .duplicateIdentifier(r.identifier) }
            boxes.append(box)
            if r.initialTrigger.contains(.exit) { exits.append((stamp, slot)) }
        }
        store = fresh
        catalogueGeneration = CatalogueGeneration()
        stampCounter = stamp
        initialExitLog = exits
        index = RegionIndex()
        // Slots are 0..<count in insertion order, all alive.
        index.rebuild(slots: Array(0..<Int32(boxes.count)), boxes: boxes)
        store.indexWasRebuilt()
    }

    /// Removes a region; subjects' state in it is forgotten. Returns whether it existed.
    @discardableResult
    public mutating func remove(identifier: String) -> Bool {
        guard let s = store.slot(of: identifier) else { return false }
        removeSlot(s)
        if index.needsRebuild { rebuildIndex() }
        return true
    }

    /// Removes every region (subjects are kept, with no region state).
    public mutating func removeAllRegions() {
        store = RegionStore()
        catalogueGeneration = CatalogueGeneration()
        index = RegionIndex()
        initialExitLog = []
        epoch &+= 1
        for i in subjectStates.indices {
            subjectStates[i].tracks = []
            subjectStates[i].deferred = false
        }
    }

    /// The region with this identifier, as added.
    public func region(identifier: String) -> Region? {
        store.slot(of: identifier).map { store.region(Int($0)) }
    }

    /// Every region, in no particular order.
    public var regions: [Region] {
        (0..<store.slotCount).filter(store.isAlive).map(store.region)
    }

    /// Every region identifier, in no particular order.
    public var regionIdentifiers: [String] {
        (0..<store.slotCount).filter(store.isAlive).map { store.ids[$0] }
    }

    /// How many regions the engine holds.
    public var regionCount: Int { store.liveCount }

    /// Identifiers of the regions whose boundary, grown by `margin` metres, may contain
    /// `point` — the spatial index's answer, refined by the exact signed distance.
    public func regions(containing point: Coordinate, margin: Double = 0) -> [String] {
        let m = max(0, margin)
        let span = GeoBox.degreeSpan(meters: m, atLatitude: point.latitude)
        var out: [String] = []
        var seen = Set<Int32>()
        index.query(lat: point.latitude, lon: point.longitude, dLat: span.lat, dLon: span.lon) { s in
            let i = Int(s)
            guard store.isAlive(i), seen.insert(s).inserted,
                store.signedDistance(i, to: point) <= m
            else { return }
            out.append(store.ids[i])
        }
        return out
    }

    // MARK: Internals

    mutating func insertValidated(_ region: Region, indexNow: Bool = true) {
        stampCounter += 1
        let (slot, box) = store.insert(region, stamp: stampCounter)
        catalogueGeneration = CatalogueGeneration()
        if indexNow { index.insert(slot: slot, box: box) }
        if region.initialTrigger.contains(.exit) {
            initialExitLog.append((stampCounter, slot))
        }
    }

    /// The regions sorted along a Z-order curve of their grid cells, so that regions near each
    /// other get neighbouring slots and a query touches few cache lines.
    static func gridOrder(_ regions: [Region]) -> [Int] {
        var keyed: [UInt64] = []
        keyed.reserveCapacity(regions.count)
        for (i, r) in regions.enumerated() {
            let lat: Double
            let lon: Double
            switch r.shape {
            case .circle(let c, _):
                lat = c.latitude
                lon = c.longitude
            case .polygon(let p):
                lat = p.exterior.first?.latitude ?? 0
                lon = p.exterior.first?.longitude ?? 0
            case .multiPolygon(let ps):
                lat = ps.first?.exterior.first?.latitude ?? 0
                lon = ps.first?.exterior.first?.longitude ?? 0
            }
            // 2^-8 degree cells (~430 m), interleaved bits: 36 bits of key, 26 of index.
            let fx: Double = ((lon + 180) * 256).rounded(.down)
            let fy: Double = ((lat + 90) * 256).rounded(.down)
            let x = UInt64(Swift.max(0.0, Swift.min(131_071.0, fx)))
            let y = UInt64(Swift.max(0.0, Swift.min(65_535.0, fy)))
            keyed.append((Engine.interleave(x, y) << 26) | UInt64(i))
        }
        RadixSort.sort(&keyed)
        return keyed.map { Int($0 & ((1 << 26) - 1)) }
    }

    static func interleave(_ x: UInt64, _ y: UInt64) -> UInt64 {
        func spread(_ v: UInt64) -> UInt64 {
            var v = v & 0xFFFF_FFFF
            v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF
            v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF
            v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F
            v = (v | (v << 2)) & 0x3333_3333_3333_3333
            v = (v | (v << 1)) & 0x5555_5555_5555_5555
            return v
        }
        return spread(x) | (spread(y) << 1)
    }

    mutating func removeSlot(_ s: Int32) {
        epoch &+= 1
        store.remove(slot: s)
        catalogueGeneration = CatalogueGeneration()
        index.noteRemoval()
    }

    mutating func rebuildIndex() {
        let store = self.store
        index.rebuild((0..<store.slotCount).lazy.filter(store.isAlive).map { (Int32($0), store.geoBox($0)) })
        self.store.indexWasRebuilt()
        initialExitLog.removeAll { !store.isAlive(Int($0.slot)) || store.hot[Int($0.slot)].stamp != $0.stamp }
    }

    /// Approximate heap bytes held for regions and the spatial index (not subjects), from
    /// array capacities; benchmarks compare it with measured heap growth.
    public var approximateRegionMemory: Int { store.memoryBytes + index.memoryBytes }
}
