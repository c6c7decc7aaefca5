import Foundation
import Geodesy

/// What the engine remembers about one subject: its last fix, where it last had a usable
/// one, and a short list of the regions it is not simply "outside" of (inside, unknown,
/// or with a transition pending). Every other region is implicitly `outside` — if it
/// existed when the subject's last usable fix was evaluated — or `unknown`.
struct SubjectState: Sendable {
    // Field order is layout order: what every fix reads comes first (the batch pipeline's
    // hints and the rectangle test in the first two cache lines, then the fix record), and
    // what only some fixes need (the settled shortcut's area, deferred distances) last, so
    // the pipeline prefetches only ``hotBytes``.

    /// Prefetch hints for batch processing (see ``Engine/process(_:subjects:measured:initialTrigger:into:)``),
    /// set after each full evaluation: up to ``hintCapacity`` regions the next fix will read
    /// (the tracked ones first, then the safe rectangle's; −1 for none), which of them have a
    /// transition pending (whose identifiers an event may need), and where the `tracks` and
    /// `safeSlots` buffers are (0 when empty). Only ever used as prefetch addresses, never
    /// read through, so a stale hint costs a wasted prefetch and nothing else; reading them
    /// needs no retain of the buffers (whose headers would otherwise be one more miss each).
    var hintSlots = SIMD8<Int32>(repeating: -1)
    var hintPending: UInt8 = 0
    /// The tracks are exactly the regions of `safeSlots`, each inside with nothing pending
    /// and no crossing under way (set after each full evaluation that used or made the
    /// rectangle; false after one that did not).
    var settled = false
    /// Tracks skipped since the last full evaluation: their last signed distance and time
    /// are those at `deferredLat`, `deferredLon`, `deferredTime` (restored before they are
    /// evaluated again).
    var deferred = false
    /// Rectangles computed and left at the next fix, in a row.
    var rectMisses: UInt16 = 0
    /// Fixes still to go without computing a rectangle, and the length of the last pause
    /// (doubling while rectangles keep missing, up to ``Engine/maximumRectPause``).
    var rectPause: UInt16 = 0
    var rectBackoff: UInt16 = 0
    /// `!tracks.isEmpty` and `!safeSlots.isEmpty`, kept by their arrays' observers: a fix
    /// far from every region tests these without reading either array's buffer (a cache
    /// miss each, for a buffer emptied but kept).
    private(set) var hasTracks = false
    private(set) var hasSafeSlots = false
    /// How many tracks `hintTracks` holds (up to 255; in what was padding before `hintTracks`).
    var hintTrackCount: UInt8 = 0
    var hintTracks: UInt = 0
    var hintSafeSlots: UInt = 0
    /// Regions with a stamp up to this one have been evaluated for this subject.
    var usableStamp: UInt64 = 0
    /// Around the last usable fix: a rectangle no region's box overlaps but those of
    /// `safeSlots` (valid while `usableStamp` is the engine's current stamp, i.e. no region
    /// was added since).
    var safe: SafeRect = .empty
    var lastTime: Double = -.infinity
    var name: String
    /// The only regions whose boxes overlap `safe` (at most ``Engine/safeSlotLimit``).
    var safeSlots: [Int32] = [] { didSet { hasSafeSlots = !safeSlots.isEmpty } }
    var tracks: [Track] = [] { didSet { hasTracks = !tracks.isEmpty } }
    /// Position and time of the last usable fix (NaN before the first).
    var usableLat: Double = .nan
    var usableLon: Double = .nan
    var usableTime: Double = .nan
    /// The last fix's fields, NaN for none (a valid fix has no NaN field; its subject is
    /// `name`, its time `lastTime`): plain numbers, so storing a fix per call copies no
    /// string.
    var lastLat: Double = .nan
    var lastLon: Double = .nan
    var lastAccuracy: Double = .nan
    var lastSpeed: Double = .nan
    var lastCourse: Double = .nan
    /// The accuracies claimed by the last four usable fixes, oldest replaced first
    /// (``TransitionRule/effectiveAccuracy(claimed:previous:)``).
    var recentClaims = SIMD4<Float>(repeating: 0)
    var recentClaimSlot: UInt8 = 0
    // Cold: read only by some fixes.
    /// Inside `deep` (part of `safe`), every region of `safeSlots` still contains the fix:
    /// while every track is settled inside, a fix there changes nothing but dwell timers,
    /// so its tracks are not evaluated (see ``Engine/skipSettled``).
    var deep: SafeRect = .empty
    /// Fixes up to this accuracy get a margin (decide) in every region of `safeSlots`.
    var deepAccuracy: Double = 0
    /// ``Engine/epoch`` when `deep` was computed (removals and policy changes void it).
    var deepEpoch: UInt64 = 0
    var deferredLat: Double = .nan
    var deferredLon: Double = .nan
    var deferredTime: Double = .nan

    /// Bytes from the start of the record that every fix reads (up to the last fix's
    /// fields): what the batch pipeline prefetches.
    static let hotBytes = MemoryLayout<SubjectState>.offset(of: \SubjectState.deep) ?? MemoryLayout<SubjectState>.size

    static let hintCapacity = 8

    init(name: String) { self.name = name }

    /// Sets the prefetch hints from `tracks` and `safeSlots`.
    mutating func refreshHints() {
        var slots = SIMD8<Int32>(repeating: -1)
        var pending: UInt8 = 0
        let cap = SubjectState.hintCapacity
        var k = 0
        while k < cap, k < tracks.count {
            slots[k] = tracks[k].slot
            if tracks[k].pendingCount > 0 { pending |= 1 << UInt8(k) }
            k += 1
        }
        let tracked = k
        var j = 0
        while k < cap, j < safeSlots.count {
            let s = safeSlots[j]
            if !(0..<tracked).contains(where: { slots[$0] == s }) {
                slots[k] = s
                k += 1
            }
            j += 1
        }
        hintSlots = slots
        hintPending = pending
        hintTracks = hasTracks ? tracks.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } : 0
        hintTrackCount = UInt8(min(tracks.count, 255))
        hintSafeSlots = hasSafeSlots ? safeSlots.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } : 0
    }

    /// For a usable fix inside the safe rectangle (and not taking the settled shortcut):
    /// resets the rectangle's miss count and, when the rectangle lists no region and nothing
    /// is tracked (the common case far from every region), records the fix as the last
    /// usable one and returns true: what a full evaluation would do then. Returns false
    /// when the fix must be evaluated.
    @inline(__always) mutating func stayInEmptyRect(lat: Double, lon: Double, time t: Double) -> Bool {
        rectMisses = 0
        rectBackoff = 0
        guard !hasSafeSlots, !hasTracks else { return false }
        settled = false
        deferred = false
        usableLat = lat
        usableLon = lon
        usableTime = t
        if hintSlots[0] >= 0 { refreshHints() }
        return true
    }

    // The record's updates, each one mutating call (so one uniqueness check of the array
    // holding it, instead of one per field written).

    /// Counts a rectangle left at the next fix; two in a row pause rectangles, for twice as
    /// long each time (up to ``Engine/maximumRectPause`` fixes).
    @inline(__always) mutating func countRectMiss() {
        rectMisses += 1
        if rectMisses >= 2 {
            let b = min(Engine.maximumRectPause, max(4, 2 * rectBackoff))
            rectBackoff = b
            rectPause = b
            rectMisses = 0
        }
    }

    /// The rectangle's regions: the candidates' slots (none: no buffer kept, see `finish`).
    @inline(__always) mutating func setSafeSlots(_ cands: ScratchList<Engine.Candidate>) {
        if cands.isEmpty {
            safeSlots = []
        } else {
            safeSlots.removeAll(keepingCapacity: true)
            for i in 0..<cands.count { safeSlots.append(cands[i].slot) }
        }
    }

    /// After a fix that found nothing near and nothing tracked (its new rectangle, if one
    /// was computed, lists no region).
    @inline(__always) mutating func finishEmpty(newSafe: SafeRect?, lat: Double, lon: Double, time t: Double) {
        if let newSafe {
            safe = newSafe
            safeSlots = []
        }
        settled = false
        deferred = false
        usableLat = lat
        usableLon = lon
        usableTime = t
        refreshHints()
    }

    /// After a full evaluation: stores the tracks (in slot order), `settled` (see
    /// ``Engine/evaluate(subject:fix:time:accuracy:trigger:due:measured:events:)``), the hints, and
    /// the fix as the last usable one.
    @inline(__always) mutating func finish(
        tracks: UnsafeBufferPointer<Track>, settled: Bool, stamp: UInt64,
        lat: Double, lon: Double, time t: Double
    ) {
        self.settled = settled
        if tracks.isEmpty {
            // An empty list gives its buffer back: an emptied buffer's header would be one
            // more cache miss for every later fix that copies the (empty) array.
            self.tracks = []
        } else if self.tracks.count == tracks.count {
            // As many as before (the usual case): copied over in place (`removeAll` and
            // `append` were two calls per fix).
            self.tracks.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: tracks) }
        } else {
            self.tracks.removeAll(keepingCapacity: true)
            self.tracks.append(contentsOf: tracks)
        }
        refreshHints()
        usableStamp = stamp
        usableLat = lat
        usableLon = lon
        usableTime = t
    }

    @inline(__always) mutating func setDeep(_ rect: SafeRect, accuracy: Double, epoch: UInt64) {
        deep = rect
        deepAccuracy = accuracy
        deepEpoch = epoch
    }

    /// The settled shortcut took a fix at (`lat`, `lon`, `t`): the tracks' geometry is due then.
    @inline(__always) mutating func deferTracks(lat: Double, lon: Double, time t: Double) {
        deferred = true
        deferredLat = lat
        deferredLon = lon
        deferredTime = t
        usableLat = lat
        usableLon = lon
        usableTime = t
    }

    /// The accuracy a usable fix claiming `claimed` metres is taken at (no better than the
    /// recent claims' median, see ``TransitionRule/effectiveAccuracy(claimed:previous:)``);
    /// the claim is remembered for the next fixes.
    @inline(__always) mutating func takeAccuracy(_ claimed: Double) -> Double {
        let a = TransitionRule.effectiveAccuracy(claimed: claimed, previous: recentClaims)
        recentClaims[Int(recentClaimSlot & 3)] = Float(claimed)
        recentClaimSlot &+= 1
        return a
    }

    /// Remembers a validated fix of this subject taken at `time` (its timestamp).
    @inline(__always) mutating func record(_ fix: FixRef, time: Double) {
        lastTime = time
        lastLat = fix.pointee.coordinate.latitude
        lastLon = fix.pointee.coordinate.longitude
        lastAccuracy = fix.pointee.horizontalAccuracy ?? .nan
        lastSpeed = fix.pointee.speed ?? .nan
        lastCourse = fix.pointee.course ?? .nan
    }
}

/// A fix read in place: the engine's internal functions take fixes by address, so that a
/// fix (whose subject string makes copying it cost a reference-count check and an
/// out-of-line copy) is copied only into the events that carry it.
typealias FixRef = UnsafePointer<LocationFix>

/// Per (subject, region) state, kept only while it is not plain "outside, nothing pending".
///
/// 64 bytes, one cache line (a city's subjects hold a dozen each, so the tracks are the
/// largest part of the working set): fields ordered to leave no padding, and the last
/// signed distance kept as a `Float` (about 7 digits: a few micrometres at 100 m, which moves
/// an interpolated crossing time by well under a millisecond).
struct Track: Sendable {
    var slot: Int32
    /// Number of consecutive deciding fixes on the far side; 0 = nothing pending.
    var pendingCount: Int32 = 0
    var stamp: UInt64
    var state: RegionState
    var dwellArmed = false
    var dwellFired = false
    private var storedLastSD: Float = .nan
    /// Timestamp of the first deciding fix of the pending transition.
    var pendingSince: Double = .nan
    /// Estimated time the boundary was crossed towards the far side (NaN when on the near side).
    var crossedAt: Double = .nan
    /// Start of the current stay inside (dwell reference).
    var insideSince: Double = .nan
    /// When the current stay inside was confirmed.
    var enteredAt: Double = .nan
    /// Time of the last fix evaluated against this region.
    var lastTime: Double = .nan

    init(slot: Int32, stamp: UInt64, state: RegionState) {
        self.slot = slot
        self.stamp = stamp
        self.state = state
    }

    /// Signed distance of the last fix evaluated against this region (NaN for none),
    /// rounded to a `Float` whose sign is the distance's own (a positive distance too small
    /// for a `Float` is kept as its smallest positive value).
    var lastSD: Double {
        @inline(__always) get { Double(storedLastSD) }
        @inline(__always) set {
            var f = Float(newValue)
            if f == 0, newValue > 0 { f = .leastNonzeroMagnitude }
            storedLastSD = f
        }
    }

    /// Nothing worth remembering: outside, nothing pending, last fix not inside.
    var isIdle: Bool {
        @inline(__always) get { state == .outside && pendingCount == 0 && !(storedLastSD <= 0) }
    }
}
