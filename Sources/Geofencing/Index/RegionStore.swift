import Foundation
import Geodesy

/// Regions in struct-of-arrays form, addressed by slot number.
///
/// Everything a fix needs per candidate region — ECEF centre, size, stamp, flags — sits in
/// one 48-byte ``Hot`` record, so testing a candidate costs one cache miss instead of four.
/// A circle costs 48 (hot record) + 8 + 8 (centre latitude / longitude) + 8 (dwell)
/// + 16 (identifier string, inline up to 15 UTF-8 bytes) + ~8 (identifier table) bytes;
/// polygons and metadata live out of line in dictionaries keyed by slot. Slots of removed
/// regions are recycled only after the index has been rebuilt (so no stale index entry can
/// point at a recycled slot); each add gets a fresh, increasing `stamp`, which subjects use
/// to tell "a region I have never evaluated" from "a region I know I am outside of".
struct RegionStore: Sendable {
    struct Flags {
        static let alive: UInt8 = 1
        static let area: UInt8 = 2
        static let notifyOnEntry: UInt8 = 4
        static let notifyOnExit: UInt8 = 8
        static let initialEnter: UInt8 = 16
        static let initialExit: UInt8 = 32
        static let initialDwell: UInt8 = 64
        /// The region has a dwell time (so arming dwell needs no load of `dwell`).
        static let hasDwell: UInt8 = 128
    }

    /// The per-region data of the hot path, one record per slot.
    struct Hot: Sendable {
        /// Earth-centred (ECEF) position of a circle's centre, for the chord bound.
        var x: Double, y: Double, z: Double
        /// Radius for circles; √(area/π) for polygons (the "size" used by margins).
        var size: Double
        var stamp: UInt64
        var flags: UInt8
    }

    var ids: [String] = []
    var lat: [Double] = []
    var lon: [Double] = []
    /// In a ``RecordTable``: a candidate's record is read in place, never copied out by a call.
    var hot = RecordTable<Hot>()
    /// Dwell seconds, NaN for none.
    var dwell: [Double] = []
    var areas: [Int32: PreparedArea] = [:]
    var metadata: [Int32: [String: String]] = [:]
    var table = IdentifierTable()
    /// Slots freed before the last index rebuild: safe to reuse.
    var reusable: [Int32] = []
    /// Slots freed since the last index rebuild.
    var freedSinceRebuild: [Int32] = []
    private(set) var liveCount = 0

    var slotCount: Int { ids.count }

    @inline(__always) func isAlive(_ s: Int) -> Bool { hot[s].flags & Flags.alive != 0 }

    func slot(of id: String) -> Int32? { table.find(id, in: ids) }

    mutating func reserve(_ n: Int) {
        let total = ids.count + n
        ids.reserveCapacity(total)
        lat.reserveCapacity(total)
        lon.reserveCapacity(total)
        hot.reserveCapacity(total)
        dwell.reserveCapacity(total)
        hot.adviseHugePages()
        HugePages.advise(&ids)
        table.reserve(n, ids: ids)
    }

    /// Stores a validated region under a new stamp; returns its slot and box. The identifier
    /// must not be present (see ``insertUnlessDuplicate(_:stamp:)``).
    @discardableResult
    mutating func insert(_ r: Region, stamp st: UInt64) -> (Int32, GeoBox) {
        let (s, b, _) = insertUnlessDuplicate(r, stamp: st)
        return (s, b)
    }

    /// Like ``insert(_:stamp:)``, and reports whether the identifier was new; when it was
    /// not, the store is left inconsistent (the region is stored but not findable), so only
    /// a store that is thrown away on a duplicate may use this.
    mutating func insertUnlessDuplicate(_ r: Region, stamp st: UInt64) -> (Int32, GeoBox, Bool) {
        var f = Flags.alive
        if r.notifyOnEntry { f |= Flags.notifyOnEntry }
        if r.notifyOnExit { f |= Flags.notifyOnExit }
        if r.initialTrigger.contains(.enter) { f |= Flags.initialEnter }
        if r.initialTrigger.contains(.exit) { f |= Flags.initialExit }
        if r.initialTrigger.contains(.dwell) { f |= Flags.initialDwell }
        if r.dwell != nil { f |= Flags.hasDwell }
        let cLat: Double
        let cLon: Double
        let sz: Double
        let b: GeoBox
        var area: PreparedArea? = nil
        switch r.shape {
        case .circle(let center, let radius):
            cLat = center.latitude
            cLon = center.longitude
            sz = radius
            b = GeoBox.around(latitude: cLat, longitude: cLon, radius: radius)
        case .polygon, .multiPolygon:
            let a = PreparedArea(r.shape)!
            area = a
            f |= Flags.area
            cLat = (a.minLat + a.maxLat) / 2
            cLon = (a.minLon + a.maxLon) / 2
            sz = a.size
            let pad = 1e-7
            b = GeoBox(
                minLat: max(-90, a.minLat - pad), maxLat: min(90, a.maxLat + pad),
                minLon: a.minLon - pad, maxLon: a.maxLon + pad)
        }
        let c = CartesianPoint(latitude: cLat, longitude: cLon)
        let s: Int32
        if let reused = reusable.popLast() {
            s = reused
            let i = Int(s)
            ids[i] = r.identifier
            lat[i] = cLat
            lon[i] = cLon
            hot[i] = Hot(x: c.x, y: c.y, z: c.z, size: sz, stamp: st, flags: f)
            dwell[i] = r.dwell ?? .nan
        } else {
            s = Int32(ids.count)
            ids.append(r.identifier)
            lat.append(cLat)
            lon.append(cLon)
            hot.append(Hot(x: c.x, y: c.y, z: c.z, size: sz, stamp: st, flags: f))
            dwell.append(r.dwell ?? .nan)
        }
        if let area {
            areas[s] = area
            originalShapes[s] = r.shape
        }
        if !r.metadata.isEmpty { metadata[s] = r.metadata }
        let added = table.insertIfAbsent(slot: s, in: ids)
        liveCount += 1
        return (s, b, added)
    }

    mutating func remove(slot s: Int32) {
        let i = Int(s)
        table.remove(ids[i], in: ids)
        hot[i].flags = 0
        ids[i] = ""
        areas[s] = nil
        originalShapes[s] = nil
        metadata[s] = nil
        freedSinceRebuild.append(s)
        liveCount -= 1
    }

    /// After an index rebuild, slots freed before it may be reused.
    mutating func indexWasRebuilt() {
        reusable.append(contentsOf: freedSinceRebuild)
        freedSinceRebuild.removeAll()
    }

    /// The exact box of a live slot (recomputed, double precision).
    func geoBox(_ s: Int) -> GeoBox {
        if hot[s].flags & Flags.area != 0, let a = areas[Int32(s)] {
            let pad = 1e-7
            return GeoBox(
                minLat: max(-90, a.minLat - pad), maxLat: min(90, a.maxLat + pad),
                minLon: a.minLon - pad, maxLon: a.maxLon + pad)
        }
        return GeoBox.around(latitude: lat[s], longitude: lon[s], radius: hot[s].size)
    }

    /// Signed distance in metres from a point to a live region's boundary; `cartesian` is the
    /// point's ECEF position.
    ///
    /// Circles use Geodesy's chord bound (docs/geodesy.md): with chord `c` between the ECEF
    /// points and `R` the smallest radius of curvature, the geodesic distance lies in
    /// `[c, 2R·asin(c/2R)]`; the midpoint is returned when that interval is within 0.1 % of
    /// the result (as `GeodesicCircle.signedDistance` does), else the exact inverse solution.
    /// The sign is exact either way.
    @inline(__always)
    func signedDistance(_ s: Int, to p: Coordinate, cartesian: CartesianPoint) -> Double {
        let h = hot[s]
        if h.flags & Flags.area == 0 {
            let radius = h.size
            let dx = cartesian.x - h.x
            let dy = cartesian.y - h.y
            let dz = cartesian.z - h.z
            let c = (dx * dx + dy * dy + dz * dz).squareRoot()
            if radius <= GeodesicCircle.chordBoundLimit {
                let excess = GeodesicCircle.chordExcess(c)
                let estimate = c + excess / 2 - radius
                let error = excess / 2 + GeodesicCircle.roundingAllowance
                if error <= 1e-3 * abs(estimate) { return estimate }
            }
            return GeodesicCircle(
                center: Coordinate(uncheckedLatitude: lat[s], longitude: lon[s]),
                radius: radius
            ).exactSignedDistance(to: p)
        }
        return areas[Int32(s)]!.signedDistance(latitude: p.latitude, longitude: p.longitude)
    }

    /// How far a subject at signed distance `sd` from region `s`'s boundary (at `latitude`)
    /// can move, in metres along the ellipsoid, with the sign of its distance certainly
    /// unchanged. Circles: |sd| (chord-bound estimates are within 0.1 %, which
    /// ``SafeRect/within(meters:ofLatitude:longitude:)`` absorbs). Polygons: their distance
    /// is planar at the point's scale, whose error grows with distance and towards the
    /// poles, so it is trusted to 90 % and only within 1 km × cos φ (error then below
    /// 0.02 %).
    @inline(__always)
    func reliableDistance(_ s: Int, sd: Double, latitude: Double) -> Double {
        if hot[s].flags & Flags.area == 0 { return abs(sd) }
        return 0.9 * min(abs(sd), 1_000 * cos(latitude * .pi / 180))
    }

    func signedDistance(_ s: Int, to p: Coordinate) -> Double {
        signedDistance(s, to: p, cartesian: CartesianPoint(p))
    }

    /// Rebuilds the public value of a live slot.
    func region(_ s: Int) -> Region {
        let f = hot[s].flags
        var trig: InitialTrigger = []
        if f & Flags.initialEnter != 0 { trig.insert(.enter) }
        if f & Flags.initialExit != 0 { trig.insert(.exit) }
        if f & Flags.initialDwell != 0 { trig.insert(.dwell) }
        let shape: RegionShape
        if f & Flags.area != 0 {
            shape = originalShapes[Int32(s)] ?? .multiPolygon([])
        } else {
            shape = .circle(center: Coordinate(uncheckedLatitude: lat[s], longitude: lon[s]), radius: hot[s].size)
        }
        return Region(
            identifier: ids[s], shape: shape, notifyOnEntry: f & Flags.notifyOnEntry != 0,
            notifyOnExit: f & Flags.notifyOnExit != 0, dwell: dwell[s].isNaN ? nil : dwell[s],
            initialTrigger: trig, metadata: metadata[Int32(s)] ?? [:])
    }

    /// Original polygon shapes as given (kept so `regions` round-trips exactly).
    var originalShapes: [Int32: RegionShape] = [:]

    /// Approximate heap bytes (arrays by capacity; strings inline; dictionaries estimated).
    var memoryBytes: Int {
        ids.capacity * 16 + (lat.capacity + lon.capacity + dwell.capacity) * 8
            + hot.capacity * MemoryLayout<Hot>.stride + table.memoryBytes
            + areas.count * 256 + metadata.count * 128
    }
}
