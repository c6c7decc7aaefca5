import Foundation
import Geodesy

// The fast path of one usable fix: find the regions it concerns, hand each one's track to the
// ``TransitionRule``, and keep the shortcuts (safe rectangle, settled area) that let later
// fixes skip work. No rule lives here: every state change is the rule's.

extension Engine {
    /// What the candidates' distances say about the fix's surroundings (for the shortcuts).
    struct Surroundings {
        /// The nearest boundary of a candidate the fix is outside of: until the subject has
        /// moved that far, it cannot be inside that region.
        var nearestOutside = Double.infinity
        /// The shallowest depth inside a candidate the fix is in.
        var nearestInside = Double.infinity
        /// The worst accuracy that still decides in every candidate the fix is in.
        var decidingAccuracy = Double.infinity
        /// Whether every candidate contains the fix.
        var allInside = true
    }

    /// Evaluates a usable fix against nearby regions and the subject's tracked regions.
    ///
    /// - Parameter due: when some of the subject's tracks have a confirmation or a dwell time
    ///   that ran out before `t` (``isDue(_:at:before:)``), the subject's previous fix: those
    ///   are confirmed first, exactly as ``advanceSubject(_:to:before:fix:events:)`` would
    ///   before this fix (in the same pass over the tracks, when the fix is fully evaluated).
    /// - Parameter measured: the fix's regions and distances, measured ahead
    ///   (``FixGeometry``), taken where the index would be queried.
    mutating func evaluate(
        subject si: Int, fix: FixRef, time t: Double, accuracy: Double,
        trigger: InitialTrigger, due: FixRef?, measured: MeasuredFix?, events: inout [TransitionEvent]
    ) {
        let p = fix.pointee.coordinate
        let oldStamp = subjectStates[si].usableStamp
        // Regions added since the subject's last evaluation are new to it: they are found
        // within the margin too (so a first fix just outside one settles `outside`).
        let fresh = oldStamp < stampCounter
        let queryMargin = fresh ? policy.margins(accuracy: accuracy).upper : 0
        let hit = !fresh && useSafeRects && subjectStates[si].safe.contains(lat: p.latitude, lon: p.longitude)
        if hit, takeRectangleShortcut(subject: si, fix: fix, time: t, accuracy: accuracy, due: due, events: &events) {
            return
        }

        var cands = ScratchList(taking: &candidateScratch)
        defer { cands.give(back: &candidateScratch) }
        let (newSafe, distancesKnown) = findCandidates(
            subject: si, at: p, fresh: fresh, inRectangle: hit, margin: queryMargin, measured: measured,
            into: &cands)
        if cands.isEmpty, !subjectStates[si].hasTracks, !fresh {
            // Nothing near and nothing tracked (the common case far from every region).
            subjectStates[si].finishEmpty(newSafe: newSafe, lat: p.latitude, lon: p.longitude, time: t)
            return
        }
        // Measured ahead with the fix, or made at the first distance it needs.
        var cart = LazyCartesianPoint(p, measured: measured?.point)
        // Measured candidates come from a plain query, which leaves no shortcut to measure.
        let around =
            distancesKnown
            ? Surroundings()
            : measureCandidates(
                &cands, at: p, &cart, margin: queryMargin, newerThan: oldStamp,
                forShortcuts: newSafe != nil || hit)
        let candidatesAreSafeSlots = updateShortcuts(
            subject: si, inRectangle: hit, newSafe: newSafe,
            around: around, candidates: cands, at: p)

        var tracks = ScratchList(taking: &trackScratch)
        defer { tracks.give(back: &trackScratch) }
        loadTracks(of: si, into: &tracks)
        let margins = policy.margins(accuracy: accuracy)
        let kept = applyRuleToTracks(
            &tracks, candidates: &cands, fix: fix, at: p, &cart, time: t, margins: margins,
            trigger: trigger, due: due, events: &events)
        startTracks(
            &tracks, after: kept, forUntracked: cands, subject: si, newerThan: oldStamp, fix: fix,
            time: t, margins: margins, trigger: trigger, events: &events)
        if fresh { emitInitialExits(newerThan: oldStamp, candidates: cands, tracks: tracks, fix: fix, events: &events) }
        let settled = candidatesAreSafeSlots && allSettledInside(tracks, candidates: cands)
        subjectStates[si].finish(
            tracks: tracks.buffer, settled: settled, stamp: stampCounter,
            lat: p.latitude, lon: p.longitude, time: t)
    }

    /// Inside the safe rectangle: the settled shortcut (every tracked region deep around the
    /// fix), or a rectangle listing no region with nothing tracked. Returns whether the fix is
    /// fully handled.
    @inline(__always)
    mutating func takeRectangleShortcut(
        subject si: Int, fix: FixRef, time t: Double, accuracy: Double,
        due: FixRef?, events: inout [TransitionEvent]
    ) -> Bool {
        let lat = fix.pointee.coordinate.latitude
        let lon = fix.pointee.coordinate.longitude
        safeRectHits &+= 1
        if subjectStates[si].settled, subjectStates[si].deepEpoch == epoch,
            accuracy <= subjectStates[si].deepAccuracy, subjectStates[si].deep.contains(lat: lat, lon: lon)
        {
            if let due { advanceSubject(si, to: t, before: true, fix: due, events: &events) }
            skipSettled(subject: si, fix: fix, time: t, events: &events)
            return true
        }
        // One mutating call: each separate write to the record would check the array's uniqueness.
        return subjectStates[si].stayInEmptyRect(lat: lat, lon: lon, time: t)
    }

    /// Collects the candidate regions of a fix into `cands` (slots only, and distances where
    /// `measured` has them; the rest come later): from the index — regions whose box holds
    /// the fix, or is within `margin` of it for a subject with regions new to it — or,
    /// inside the safe rectangle, the regions it lists. A plain zero-margin query is
    /// answered by `measured` when given: the same entries, from the same index. Returns the
    /// new safe rectangle when one was computed, and whether the candidates came measured.
    @inline(__always)
    mutating func findCandidates(
        subject si: Int, at p: Coordinate, fresh: Bool, inRectangle hit: Bool,
        margin: Double, measured: MeasuredFix?, into cands: inout ScratchList<Candidate>
    ) -> (safe: SafeRect?, measured: Bool) {
        let lat = p.latitude
        let lon = p.longitude
        // Each record is requested as the index names it, so that its miss overlaps the rest
        // of the scan instead of stalling the distance loop.
        let records = RecordPrefetcher(store)
        if fresh {
            let span = GeoBox.degreeSpan(meters: margin, atLatitude: lat)
            index.query(lat: lat, lon: lon, dLat: span.lat, dLon: span.lon) { slot in
                cands.append(Candidate(slot: slot, sd: 0, used: false))
                records.record(slot)
            }
            subjectStates[si].safe = .empty
            return (nil, false)
        }
        if hit {
            for slot in subjectStates[si].safeSlots { cands.append(Candidate(slot: slot, sd: 0, used: false)) }
            return (nil, false)
        }
        if subjectStates[si].rectPause > 0 || !useSafeRects {
            // Rectangles have not been paying off for this subject (dense regions, or fast
            // movement): a plain query, keeping the last rectangle (still valid).
            if subjectStates[si].rectPause > 0 { subjectStates[si].rectPause -= 1 }
            if let measured {
                measuredFixesTaken &+= 1
                takeInside(measured, into: &cands)
                return (nil, true)
            }
            index.query(lat: lat, lon: lon, dLat: 0, dLon: 0) { slot in
                cands.append(Candidate(slot: slot, sd: 0, used: false))
                records.record(slot)
            }
            return (nil, false)
        }
        var safe = SafeRect.everything
        index.pointQuery(lat: lat, lon: lon, safe: &safe) { slot in
            cands.append(Candidate(slot: slot, sd: 0, used: false))
            records.record(slot)
        }
        subjectStates[si].countRectMiss()
        return (safe, false)
    }

    /// Appends the entries of a measured fix that it is inside of, with their distances, to
    /// `cands`: what ``measureCandidates(_:at:_:margin:newerThan:forShortcuts:)`` keeps of a
    /// plain zero-margin query (in slot order already). A stale entry's distance is NaN, so it
    /// is dropped without reading its region's record.
    @inline(__always)
    func takeInside(_ measured: MeasuredFix, into cands: inout ScratchList<Candidate>) {
        for e in measured.entries where e.sd <= 0 { cands.append(Candidate(slot: e.slot, sd: e.sd, used: false)) }
    }

    /// Works out each candidate's signed distance and keeps those that concern the fix — it is
    /// inside them, or they are new to the subject (stamp after `oldStamp`) and within
    /// `margin` — in slot order. With `forShortcuts`, also measures the surroundings.
    @inline(__always)
    func measureCandidates(
        _ cands: inout ScratchList<Candidate>, at p: Coordinate, _ cart: inout LazyCartesianPoint,
        margin: Double, newerThan oldStamp: UInt64, forShortcuts: Bool
    ) -> Surroundings {
        var around = Surroundings()
        guard !cands.isEmpty else { return around }
        let multiCell = margin > 0 // a margin query may list a region once per cell
        let cart = cart.value
        var kept = 0
        for i in 0..<cands.count {
            let slot = cands[i].slot
            let s = Int(slot)
            // The index has tested the box; stale entries of removed regions remain.
            guard store.isAlive(s) else { continue }
            if multiCell, (0..<kept).contains(where: { cands[$0].slot == slot }) { continue }
            let sd = store.signedDistance(s, to: p, cartesian: cart)
            if forShortcuts {
                let reach = store.reliableDistance(s, sd: sd, latitude: p.latitude)
                if sd > 0 {
                    around.nearestOutside = min(around.nearestOutside, reach)
                } else {
                    around.nearestInside = min(around.nearestInside, reach)
                    around.decidingAccuracy = min(
                        around.decidingAccuracy,
                        policy.largestDecidingAccuracy(regionSize: store.hot[s].size))
                }
            }
            if sd <= 0 || (sd <= margin && store.hot[s].stamp > oldStamp) {
                cands[kept] = Candidate(slot: slot, sd: sd, used: false)
                kept += 1
            }
        }
        around.allInside = kept == cands.count
        cands.truncate(to: kept)
        // In slot order, like the tracks, so that each track finds its candidate by a merge
        // (the index lists a cell's regions in slot order already: one pass, no move).
        cands.insertionSort { $0.slot }
        return around
    }

    /// Moves the safe rectangle and the settled area to this fix. Returns whether the
    /// candidates are now exactly the rectangle's regions (a condition of `settled`).
    @inline(__always)
    mutating func updateShortcuts(
        subject si: Int, inRectangle hit: Bool, newSafe: SafeRect?, around: Surroundings,
        candidates cands: ScratchList<Candidate>, at p: Coordinate
    ) -> Bool {
        let lat = p.latitude
        let lon = p.longitude
        if hit {
            // Still in the rectangle: move the settled area to this fix.
            if around.allInside, around.nearestInside.isFinite {
                setDeep(
                    subject: si, within: subjectStates[si].safe, depth: around.nearestInside,
                    accuracy: around.decidingAccuracy, lat: lat, lon: lon)
            } else {
                subjectStates[si].deep = .empty
            }
            return around.allInside
        }
        guard var safe = newSafe else { return false }
        guard cands.count <= Engine.safeSlotLimit else {
            subjectStates[si].safe = .empty
            return false
        }
        // Safe: inside the rectangle, not yet as far as the nearest outside candidate's
        // boundary, and only the candidates the fix is inside of to re-check.
        if around.nearestOutside.isFinite {
            safe.formIntersection(SafeRect.within(meters: around.nearestOutside, ofLatitude: lat, longitude: lon))
        }
        subjectStates[si].safe = safe
        subjectStates[si].setSafeSlots(cands)
        setDeep(
            subject: si, within: safe, depth: around.nearestInside, accuracy: around.decidingAccuracy, lat: lat,
            lon: lon)
        return true
    }

    /// Copies the subject's tracks into `tracks`; tracks skipped by the settled shortcut first
    /// get the signed distance and time of the last fix that skipped them.
    @inline(__always)
    mutating func loadTracks(of si: Int, into tracks: inout ScratchList<Track>) {
        subjectStates[si].tracks.withUnsafeBufferPointer { tracks.append(contentsOf: $0) }
        guard subjectStates[si].deferred else { return }
        let d = Coordinate(uncheckedLatitude: subjectStates[si].deferredLat, longitude: subjectStates[si].deferredLon)
        let dt = subjectStates[si].deferredTime
        for r in 0..<tracks.count {
            let s = Int(tracks[r].slot)
            guard store.isAlive(s), store.hot[s].stamp == tracks[r].stamp else { continue }
            tracks[r].lastSD = store.signedDistance(s, to: d)
            tracks[r].lastTime = dt
        }
        subjectStates[si].deferred = false
    }

    /// Applies the rule to every tracked region (inside, unknown, pending), in place: first
    /// what ran out before this fix (`due`), then the fix. Tracks of removed regions and
    /// tracks left idle are dropped; candidates found are marked used. Returns how many remain.
    @inline(__always)
    mutating func applyRuleToTracks(
        _ tracks: inout ScratchList<Track>, candidates cands: inout ScratchList<Candidate>,
        fix: FixRef, at p: Coordinate, _ cart: inout LazyCartesianPoint, time t: Double,
        margins: FixMargins, trigger: InitialTrigger, due: FixRef?,
        events: inout [TransitionEvent]
    ) -> Int {
        var w = 0
        var c = 0
        var previous = Int32.min
        for r in 0..<tracks.count {
            let s = Int(tracks[r].slot)
            guard store.isAlive(s), store.hot[s].stamp == tracks[r].stamp else { continue } // removed / replaced
            if let due, isDue(tracks[r], at: t, before: true) {
                // A track left idle is dropped, and re-created later if the fix is inside.
                confirmDue(&tracks[r], at: t, before: true, fix: due, events: &events)
                if tracks[r].isIdle { continue }
            }
            var sd = takeCandidateDistance(of: tracks[r].slot, from: &cands, cursor: &c, previous: &previous)
            if sd.isNaN { sd = store.signedDistance(s, to: p, cartesian: cart.value) }
            step(&tracks[r], sd: sd, margins: margins, time: t, fix: fix, trigger: trigger, events: &events)
            if !tracks[r].isIdle {
                if w != r { tracks[w] = tracks[r] }
                w += 1
            }
        }
        tracks.truncate(to: w)
        return w
    }

    /// The signed distance the candidates hold for `slot` (NaN if it is not one), marking it
    /// used. Both lists are in slot order, so a merge finds it (`cursor`, `previous` carry the
    /// merge; a full search if the tracks were ever out of order).
    @inline(__always)
    func takeCandidateDistance(
        of slot: Int32, from cands: inout ScratchList<Candidate>,
        cursor c: inout Int, previous: inout Int32
    ) -> Double {
        if slot > previous {
            previous = slot
            while c < cands.count, cands[c].slot < slot { c += 1 }
            guard c < cands.count, cands[c].slot == slot else { return .nan }
            cands[c].used = true
            c += 1
            return cands[c - 1].sd
        }
        assertionFailure("tracks out of slot order")
        for k in 0..<cands.count where cands[k].slot == slot {
            cands[k].used = true
            return cands[k].sd
        }
        return .nan
    }

    /// New tracks for the candidates no track took: known outside regions (their last signed
    /// distance from the subject's previous usable fix, for the crossing time) or regions new
    /// to the subject (unknown). Kept when the rule leaves them not idle, in slot order.
    @inline(__always)
    mutating func startTracks(
        _ tracks: inout ScratchList<Track>, after kept: Int, forUntracked cands: ScratchList<Candidate>,
        subject si: Int, newerThan oldStamp: UInt64, fix: FixRef, time t: Double,
        margins: FixMargins, trigger: InitialTrigger, events: inout [TransitionEvent]
    ) {
        let prevLat = subjectStates[si].usableLat
        let prevLon = subjectStates[si].usableLon
        let prevTime = subjectStates[si].usableTime
        let prev = Coordinate(uncheckedLatitude: prevLat, longitude: prevLon)
        var prevCart: CartesianPoint? = nil
        for i in 0..<cands.count where !cands[i].used {
            let s = Int(cands[i].slot)
            let known = store.hot[s].stamp <= oldStamp
            var tr = Track(slot: cands[i].slot, stamp: store.hot[s].stamp, state: known ? .outside : .unknown)
            if known, !prevLat.isNaN {
                if prevCart == nil { prevCart = CartesianPoint(prev) }
                tr.lastSD = store.signedDistance(s, to: prev, cartesian: prevCart!)
                tr.lastTime = prevTime
            }
            step(&tr, sd: cands[i].sd, margins: margins, time: t, fix: fix, trigger: trigger, events: &events)
            if !tr.isIdle { tracks.append(tr) }
        }
        tracks.insertionSort(from: kept) { $0.slot }
    }

    /// Initial exits for regions new to the subject that asked for them (``Region/initialTrigger``)
    /// and that the fix is not near.
    mutating func emitInitialExits(
        newerThan oldStamp: UInt64, candidates cands: ScratchList<Candidate>,
        tracks: ScratchList<Track>, fix: FixRef, events: inout [TransitionEvent]
    ) {
        guard !initialExitLog.isEmpty else { return }
        var lo = 0
        var hi = initialExitLog.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if initialExitLog[mid].stamp <= oldStamp { lo = mid + 1 } else { hi = mid }
        }
        let t = fix.pointee.timestamp.timeIntervalSinceReferenceDate
        for e in initialExitLog[lo...] {
            let s = Int(e.slot)
            guard store.isAlive(s), store.hot[s].stamp == e.stamp,
                !cands.contains(where: { $0.slot == e.slot }), !tracks.contains(where: { $0.slot == e.slot }),
                store.hot[s].flags & RegionStore.Flags.notifyOnExit != 0
            else { continue }
            events.append(event(.exit, s, fix, time: t, crossedAt: t, initial: true))
        }
    }

    /// Whether the settled shortcut may take the next fix: the tracks are exactly the
    /// candidates (both in slot order), each inside with nothing under way (an untracked one
    /// could be re-entered unseen).
    @inline(__always)
    func allSettledInside(_ tracks: ScratchList<Track>, candidates cands: ScratchList<Candidate>) -> Bool {
        guard tracks.count == cands.count else { return false }
        for k in 0..<tracks.count {
            let tr = tracks[k]
            if tr.slot != cands[k].slot || tr.state != .inside || tr.pendingCount != 0 || !tr.crossedAt.isNaN {
                return false
            }
        }
        return true
    }

    /// Sets the settled shortcut's area: the part of `rect` nearer to the fix than `depth`
    /// (the shallowest depth inside the subject's regions; all of `rect` when infinite),
    /// for fixes up to `accuracy`, valid for the current ``epoch``.
    mutating func setDeep(
        subject si: Int, within rect: SafeRect, depth: Double, accuracy: Double,
        lat: Double, lon: Double
    ) {
        var deep = rect
        if depth.isFinite { deep.formIntersection(SafeRect.within(meters: depth, ofLatitude: lat, longitude: lon)) }
        subjectStates[si].setDeep(deep, accuracy: accuracy, epoch: epoch)
    }

    /// The settled shortcut: the fix is inside every region the subject tracks, where each
    /// track is settled inside and the fix decides. The rule would only store each signed
    /// distance and time (recorded here once, for all, and restored when they are next
    /// evaluated) and run the dwell timers (run here), so the geometry is skipped.
    mutating func skipSettled(subject si: Int, fix: FixRef, time t: Double, events: inout [TransitionEvent]) {
        let lat = fix.pointee.coordinate.latitude
        let lon = fix.pointee.coordinate.longitude
        if subjectStates[si].tracks.contains(where: { $0.dwellArmed && !$0.dwellFired }) {
            var tracks = subjectStates[si].tracks
            subjectStates[si].tracks = []
            for r in tracks.indices { checkDwell(&tracks[r], at: t, fix: fix, events: &events) }
            subjectStates[si].tracks = tracks
        }
        subjectStates[si].deferTracks(lat: lat, lon: lon, time: t)
        settledSkips &+= 1
    }
}

/// A fix's point on the ellipsoid, computed when first asked for (a fix may need no distance
/// of its own), unless it came measured ahead (``FixGeometry``).
struct LazyCartesianPoint {
    let coordinate: Coordinate
    private var point: CartesianPoint?

    /// `measured` must be `CartesianPoint(coordinate)`, made elsewhere.
    init(_ coordinate: Coordinate, measured: CartesianPoint?) {
        self.coordinate = coordinate
        point = measured
    }

    var value: CartesianPoint {
        @inline(__always) mutating get {
            if let point { return point }
            let made = CartesianPoint(coordinate)
            point = made
            return made
        }
    }
}
