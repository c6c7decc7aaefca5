import Foundation
import Geodesy

/// Export and import of an engine's per-subject state (a checkpoint), so that a process can
/// restart from a snapshot plus the fixes after it instead of replaying every fix.
///
/// ```swift
/// let bytes = engine.subjectSnapshot()            // after some fixes
/// var restored = Engine(policy: engine.policy)
/// try restored.add(contentsOf: engine.regions)      // the same regions, in any order
/// try restored.restoreSubjects(from: bytes)
/// // `restored` now gives exactly the events `engine` gives for the same later fixes.
/// ```
///
/// **What is kept**: every subject (in order of first appearance) with its last fix, where
/// and when it last had a usable fix, the accuracies its last four usable fixes claimed, the regions it has been evaluated against, and every
/// per-region track (state, pending transition, crossing and dwell times, last signed
/// distance). The regions' add order (their *stamps*, which tell a region a subject has never
/// been evaluated against from one it is known to be outside of) is kept by identifier.
/// **What is not**: the safe rectangles and prefetch hints — caches that only skip work; the
/// first fix after a restore is evaluated in full and rebuilds them (the same events either
/// way: both paths are exact).
///
/// **Format** (``snapshotFormatVersion`` 1), little-endian binary: magic `GFES`, version,
/// the policy (JSON), the stamp counter, a fingerprint of the regions, the regions' stamps by
/// identifier, the subjects, and an FNV-1a checksum of everything before it. Numbers are
/// stored as their bit patterns, so a restore is exact (NaN included).
extension Engine {
    /// The format ``subjectSnapshot()`` writes; ``restoreSubjects(from:)`` reads only this one.
    public static let snapshotFormatVersion: UInt32 = 1

    /// The per-subject state (see the extension's manual), in the versioned binary format.
    public func subjectSnapshot() -> Data {
        var cache = SnapshotCache()
        return subjectSnapshot(cache: &cache)
    }

    /// ``subjectSnapshot()`` reusing the regions' part from `cache` while the regions are
    /// unchanged (``SnapshotCache``): the same bytes, at the cost of the subjects alone.
    public func subjectSnapshot(cache: inout SnapshotCache) -> Data {
        let catalogue = catalogueSection(cache: &cache)
        var w = SnapshotWriter()
        w.buffer.reserveCapacity(catalogue.bytes.count + 256 * (subjectStates.count + 1))
        w.bytes(Array(SnapshotWriter.magic))
        w.u32(Engine.snapshotFormatVersion)
        w.data(Engine.policyBytes(policy))
        w.u64(stampCounter)
        w.bytes(catalogue.bytes)
        w.u32(UInt32(subjectStates.count))
        for st in subjectStates {
            w.string(st.name)
            for v in [
                st.lastTime, st.lastLat, st.lastLon, st.lastAccuracy, st.lastSpeed, st.lastCourse,
                st.usableLat, st.usableLon, st.usableTime,
            ] { w.f64(v) }
            w.u64(st.usableStamp)
            w.u8(st.deferred ? 1 : 0)
            for v in [st.deferredLat, st.deferredLon, st.deferredTime] { w.f64(v) }
            // The accuracy memory (the last four claims) decides the next fixes' margins.
            for k in 0..<4 { w.u32(st.recentClaims[k].bitPattern) }
            w.u8(st.recentClaimSlot)
            // Only tracks of live regions under their current stamp: the others are dead.
            let tracks = st.tracks.filter { store.isAlive(Int($0.slot)) && store.hot[Int($0.slot)].stamp == $0.stamp }
            w.u32(UInt32(tracks.count))
            for tr in tracks {
                w.u32(catalogue.ordinals[Int(tr.slot)])
                w.u32(UInt32(bitPattern: tr.pendingCount))
                w.u8(Engine.stateCode(tr.state))
                w.u8((tr.dwellArmed ? 1 : 0) | (tr.dwellFired ? 2 : 0))
                w.u32(Float(tr.lastSD).bitPattern)
                for v in [tr.pendingSince, tr.crossedAt, tr.insideSince, tr.enteredAt, tr.lastTime] { w.f64(v) }
            }
        }
        w.u64(SnapshotWriter.fnv1a(w.buffer))
        return Data(w.buffer)
    }

    /// Replaces every subject's state with the one in `snapshot` (from
    /// ``subjectSnapshot()``). The engine must hold exactly the regions it held when the
    /// snapshot was taken (same identifiers and geometry; the order they were added in does
    /// not matter) and the same policy.
    /// - Throws: ``EngineSnapshotError``; the engine is unchanged then.
    public mutating func restoreSubjects(from snapshot: Data) throws(EngineSnapshotError) {
        let decoded = try DecodedSnapshot(snapshot)
        guard decoded.policy == Engine.policyBytes(policy) else { throw .policyDiffers }
        let live = (0..<store.slotCount).filter(store.isAlive)
        guard decoded.regions.count == live.count, decoded.fingerprint == catalogueFingerprint() else {
            throw .regionsDiffer
        }
        var slots: [Int32] = []
        slots.reserveCapacity(decoded.regions.count)
        var maxStamp: UInt64 = 0
        for (id, stamp) in decoded.regions {
            guard let s = store.slot(of: id) else { throw .regionsDiffer }
            slots.append(s)
            maxStamp = max(maxStamp, stamp)
        }
        guard Set(slots).count == slots.count else { throw .corrupt("a region appears twice") }
        guard maxStamp <= decoded.stampCounter, Set(decoded.regions.map(\.stamp)).count == decoded.regions.count else {
            throw .corrupt("region stamps are not unique or exceed the stamp counter")
        }
        // Apply: the snapshot's stamps on the regions, then the subjects.
        for (k, s) in slots.enumerated() { store.hot[Int(s)].stamp = decoded.regions[k].stamp }
        stampCounter = decoded.stampCounter
        catalogueGeneration = CatalogueGeneration()
        initialExitLog = initialExitLog.map { (stamp: store.hot[Int($0.slot)].stamp, slot: $0.slot) }
            .sorted { $0.stamp < $1.stamp }
        epoch &+= 1
        subjectStates = []
        subjectIndex = [:]
        subjectStates.reserveCapacity(decoded.subjects.count)
        for var st in decoded.subjects {
            var tracks = st.tracks
            for r in tracks.indices {
                let s = slots[Int(tracks[r].slot)]
                tracks[r].slot = s
                tracks[r].stamp = store.hot[Int(s)].stamp
            }
            tracks.sort { $0.slot < $1.slot }
            st.tracks = tracks
            st.refreshHints()
            subjectIndex[st.name] = Int32(subjectStates.count)
            subjectStates.append(st)
        }
    }

    static func policyBytes(_ policy: HysteresisPolicy) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array((try? encoder.encode(policy)) ?? Data())
    }

    static func stateCode(_ s: RegionState) -> UInt8 {
        switch s {
        case .unknown: 0
        case .inside: 1
        case .outside: 2
        }
    }
}

/// Why a snapshot cannot be restored (``Engine/restoreSubjects(from:)``).
public enum EngineSnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Truncated, damaged (checksum) or not a snapshot at all.
    case corrupt(String)
    /// Written in another format version.
    case unsupportedVersion(UInt32)
    /// Taken over other regions than the engine holds.
    case regionsDiffer
    /// Taken under another hysteresis policy.
    case policyDiffers

    public var description: String {
        switch self {
        case .corrupt(let why): "the engine snapshot is corrupt: \(why)"
        case .unsupportedVersion(let v):
            "the engine snapshot has format version \(v); this build reads version \(Engine.snapshotFormatVersion)"
        case .regionsDiffer: "the engine snapshot was taken over other regions"
        case .policyDiffers: "the engine snapshot was taken under another hysteresis policy"
        }
    }
}

/// A snapshot read back, checked, not yet applied.
private struct DecodedSnapshot {
    var policy: [UInt8] = []
    var stampCounter: UInt64 = 0
    var fingerprint: UInt64 = 0
    var regions: [(id: String, stamp: UInt64)] = []
    /// Tracks' `slot` holds the region's ordinal in `regions` until applied.
    var subjects: [SubjectState] = []

    init(_ data: Data) throws(EngineSnapshotError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 16, Array(bytes.prefix(4)) == Array(SnapshotWriter.magic) else {
            throw .corrupt("no snapshot header")
        }
        var r = SnapshotReader(bytes: bytes[...].dropLast(8))
        _ = try r.bytes(4)
        let version = try r.u32()
        guard version == Engine.snapshotFormatVersion else { throw .unsupportedVersion(version) }
        var tail = SnapshotReader(bytes: bytes[(bytes.count - 8)...])
        guard try tail.u64() == SnapshotWriter.fnv1a(Array(bytes.dropLast(8))) else {
            throw .corrupt("checksum mismatch")
        }
        policy = try r.data()
        stampCounter = try r.u64()
        fingerprint = try r.u64()
        let regionCount = Int(try r.u32())
        try r.require(regionCount * 12)
        regions.reserveCapacity(regionCount)
        for _ in 0..<regionCount { regions.append((try r.string(), try r.u64())) }
        let subjectCount = Int(try r.u32())
        try r.require(subjectCount * 100)
        subjects.reserveCapacity(subjectCount)
        var names = Set<String>()
        for _ in 0..<subjectCount {
            var st = SubjectState(name: try r.string())
            guard names.insert(st.name).inserted else { throw .corrupt("subject \"\(st.name)\" appears twice") }
            st.lastTime = try r.f64()
            st.lastLat = try r.f64()
            st.lastLon = try r.f64()
            st.lastAccuracy = try r.f64()
            st.lastSpeed = try r.f64()
            st.lastCourse = try r.f64()
            st.usableLat = try r.f64()
            st.usableLon = try r.f64()
            st.usableTime = try r.f64()
            st.usableStamp = try r.u64()
            st.deferred = try r.u8() != 0
            st.deferredLat = try r.f64()
            st.deferredLon = try r.f64()
            st.deferredTime = try r.f64()
            for k in 0..<4 { st.recentClaims[k] = Float(bitPattern: try r.u32()) }
            st.recentClaimSlot = try r.u8()
            let trackCount = Int(try r.u32())
            try r.require(trackCount * 54)
            var tracks: [Track] = []
            tracks.reserveCapacity(trackCount)
            for _ in 0..<trackCount {
                let ordinal = try r.u32()
                guard ordinal < regionCount else { throw .corrupt("a track names region \(ordinal) of \(regionCount)") }
                let pending = Int32(bitPattern: try r.u32())
                let state: RegionState
                switch try r.u8() {
                case 0: state = .unknown
                case 1: state = .inside
                case 2: state = .outside
                case let c: throw .corrupt("region state code \(c)")
                }
                var tr = Track(slot: Int32(ordinal), stamp: 0, state: state)
                tr.pendingCount = pending
                let dwell = try r.u8()
                tr.dwellArmed = dwell & 1 != 0
                tr.dwellFired = dwell & 2 != 0
                tr.lastSD = Double(Float(bitPattern: try r.u32()))
                tr.pendingSince = try r.f64()
                tr.crossedAt = try r.f64()
                tr.insideSince = try r.f64()
                tr.enteredAt = try r.f64()
                tr.lastTime = try r.f64()
                tracks.append(tr)
            }
            st.tracks = tracks
            subjects.append(st)
        }
        guard r.isAtEnd else { throw .corrupt("\(r.remaining) bytes left over") }
    }
}

/// Little-endian binary output of ``Engine/subjectSnapshot()``.
struct SnapshotWriter {
    static let magic = "GFES".utf8
    var buffer: [UInt8] = []

    mutating func bytes(_ b: [UInt8]) { buffer.append(contentsOf: b) }
    mutating func u8(_ v: UInt8) { buffer.append(v) }
    mutating func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func data(_ b: [UInt8]) {
        u32(UInt32(b.count))
        bytes(b)
    }
    mutating func string(_ s: String) { data(Array(s.utf8)) }

    /// 64-bit FNV-1a: detects damage, not tampering.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

/// Reads ``SnapshotWriter``'s output; every read checks the bounds.
struct SnapshotReader {
    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }
    var remaining: Int { bytes.count }

    /// Fails early when fewer than `n` bytes are left (so a damaged count cannot reserve
    /// absurd memory).
    func require(_ n: Int) throws(EngineSnapshotError) {
        guard n >= 0, n <= bytes.count else { throw .corrupt("truncated") }
    }

    mutating func bytes(_ n: Int) throws(EngineSnapshotError) -> ArraySlice<UInt8> {
        try require(n)
        let out = bytes.prefix(n)
        bytes = bytes.dropFirst(n)
        return out
    }

    mutating func u8() throws(EngineSnapshotError) -> UInt8 { try bytes(1).first! }
    mutating func u32() throws(EngineSnapshotError) -> UInt32 {
        try bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
    mutating func u64() throws(EngineSnapshotError) -> UInt64 {
        try bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func f64() throws(EngineSnapshotError) -> Double { Double(bitPattern: try u64()) }
    mutating func data() throws(EngineSnapshotError) -> [UInt8] { Array(try bytes(Int(try u32()))) }
    mutating func string() throws(EngineSnapshotError) -> String {
        let b = try data()
        guard let s = strictUTF8String(b) else { throw .corrupt("a name is not UTF-8") }
        return s
    }
}
