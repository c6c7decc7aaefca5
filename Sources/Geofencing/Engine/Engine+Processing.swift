import CPrefetch
import Foundation
import Geodesy

extension Engine {
    /// Feeds one fix and returns the events it confirms, in time order (at equal times:
    /// exits, then entries, then dwells).
    ///
    /// Before the fix is applied, pending transitions whose confirmation time has run out by
    /// `fix.timestamp` are confirmed (exactly as ``advance(subject:to:)`` would), so the
    /// events do not depend on whether the caller also calls `advance`.
    ///
    /// For high rates, ``process(_:subject:initialTrigger:into:)`` with a ``SubjectHandle``
    /// gives the same events without hashing the subject or allocating per fix.
    ///
    /// - Parameter initialTrigger: initial events wanted for regions whose state this fix
    ///   determines for the first time, in addition to each region's own
    ///   ``Region/initialTrigger``. (For `.exit`, only regions near the fix are covered; far
    ///   regions get an initial exit only through their own trigger.)
    /// - Throws: ``GeofencingError/invalidFix(subject:field:reason:)`` or
    ///   ``GeofencingError/outOfOrderFix(subject:timestamp:lastTimestamp:)``; the engine is
    ///   unchanged then.
    public mutating func process(_ fix: LocationFix,
                                 initialTrigger: InitialTrigger = []) throws(GeofencingError) -> [TransitionEvent] {
        var events: [TransitionEvent] = []
        try process(fix, initialTrigger: initialTrigger, into: &events)
        return events
    }

    /// Feeds one fix and appends the events it confirms, in time order, to `events` (whatever
    /// `events` held before is kept). Same rules and errors as ``process(_:initialTrigger:)``;
    /// on error nothing is appended. Reusing one buffer (`removeAll(keepingCapacity: true)`)
    /// avoids an allocation per fix.
    public mutating func process(_ fix: LocationFix, initialTrigger: InitialTrigger = [],
                                 into events: inout [TransitionEvent]) throws(GeofencingError) {
        try fix.validate()
        let si: Int
        if let i = subjectIndex[fix.subject] {
            si = Int(i)
        } else {
            si = subjectStates.count
            subjectIndex[fix.subject] = Int32(si)
            subjectStates.append(SubjectState(name: fix.subject))
        }
        try withUnsafePointer(to: fix) { (fix) throws(GeofencingError) in
            try processValidated(fix, subject: si, initialTrigger: initialTrigger, into: &events)
        }
    }

    /// Feeds one fix of the subject behind `handle` (from ``handle(for:)``) and appends the
    /// events it confirms, in time order, to `events`.
    ///
    /// Gives exactly the events of ``process(_:initialTrigger:)``; it only skips the lookup of
    /// `fix.subject` (a string hash per fix), which is why it is the fastest way to feed an
    /// engine. `fix.subject` must still be the handle's subject (compared, not hashed).
    /// - Throws: ``GeofencingError/invalidFix(subject:field:reason:)`` (field `subject` when
    ///   the handle is not this engine's handle for `fix.subject`) or
    ///   ``GeofencingError/outOfOrderFix(subject:timestamp:lastTimestamp:)``; the engine is
    ///   unchanged and nothing is appended then.
    public mutating func process(_ fix: LocationFix, subject handle: SubjectHandle,
                                 initialTrigger: InitialTrigger = [],
                                 into events: inout [TransitionEvent]) throws(GeofencingError) {
        try withUnsafePointer(to: fix) { (fix) throws(GeofencingError) in
            try process(fix, subject: handle, initialTrigger: initialTrigger, into: &events)
        }
    }

    /// ``process(_:subject:initialTrigger:into:)`` for a fix read in place (the batch entry
    /// point's), so that it is never copied.
    @inline(__always)
    mutating func process(_ fix: FixRef, subject handle: SubjectHandle, initialTrigger: InitialTrigger,
                          into events: inout [TransitionEvent]) throws(GeofencingError) {
        let si = Int(handle.rawValue)
        guard si >= 0, si < subjectStates.count, subjectStates[si].name == fix.pointee.subject else {
            throw .invalidFix(subject: fix.pointee.subject, field: "subject",
                              reason: "does not match the subject handle \(handle.rawValue)")
        }
        if !fix.pointee.passesValidation { try fix.pointee.validate() }
        try processValidated(fix, subject: si, initialTrigger: initialTrigger, into: &events)
    }

    /// Feeds fixes in order; stops at the first bad one (the fixes before it stay applied).
    public mutating func process(contentsOf fixes: some Sequence<LocationFix>) throws(GeofencingError) -> [TransitionEvent] {
        var all: [TransitionEvent] = []
        for f in fixes { try process(f, into: &all) }
        return all
    }

    /// The body of `process` for a validated fix of subject `si`.
    @inline(__always)
    mutating func processValidated(_ fix: FixRef, subject si: Int, initialTrigger: InitialTrigger,
                                   into events: inout [TransitionEvent]) throws(GeofencingError) {
        let t = fix.pointee.timestamp.timeIntervalSinceReferenceDate
        let last = subjectStates[si].lastTime
        if t < last {
            throw .outOfOrderFix(subject: fix.pointee.subject, timestamp: fix.pointee.timestamp,
                                 lastTimestamp: Date(timeIntervalSinceReferenceDate: last))
        }
        let first = events.count
        let accuracy = fix.pointee.horizontalAccuracy ?? policy.assumedAccuracy
        // Pending transitions and dwell times that ran out before this fix are confirmed
        // first, with the subject's previous fix in their events (``advanceSubject``). A
        // full evaluation does it in its own pass over the tracks; so the previous fix is
        // rebuilt here only when something is due.
        if subjectStates[si].hasTracks, scanTracks(of: si, dueBefore: t) {
            var previous = recordedFix(of: si)
            subjectStates[si].record(fix, time: t)
            withUnsafePointer(to: &previous) { previous in
                if accuracy <= policy.maximumAccuracy {
                    evaluate(subject: si, fix: fix, time: t, accuracy: accuracy, trigger: initialTrigger,
                             due: previous, events: &events)
                } else {
                    advanceSubject(si, to: t, before: true, fix: previous, events: &events)
                }
            }
        } else {
            subjectStates[si].record(fix, time: t)
            if accuracy <= policy.maximumAccuracy {
                evaluate(subject: si, fix: fix, time: t, accuracy: accuracy, trigger: initialTrigger,
                         due: nil, events: &events)
            }
        }
        // Confirmations that ran out before the fix come before its own events (all at `t`).
        if events.count - first > 1 { Engine.sortByTime(&events, from: first) }
    }

    /// Whether any of subject `si`'s tracks has something due before `t`
    /// (``isDue(_:at:before:)``). On the way, as every track is read here anyway, it requests
    /// what evaluating the fix will read that the batch's hints did not cover: the region
    /// records of the tracks past ``SubjectState/hintCapacity``, and the identifiers of the
    /// regions with a transition pending (an event needs them). The index query and the
    /// candidates come first, so these misses overlap them.
    @inline(__always)
    func scanTracks(of si: Int, dueBefore t: Double) -> Bool {
        let hot = store.hot.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let ids = store.ids.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let hotStride = MemoryLayout<RegionStore.Hot>.stride, idStride = MemoryLayout<String>.stride
        return subjectStates[si].tracks.withUnsafeBufferPointer { tracks in
            var due = false
            for r in 0..<tracks.count {
                let s = Int(tracks[r].slot)
                if r >= SubjectState.hintCapacity, let hot { prefetch(hot + s * hotStride, bytes: hotStride) }
                if tracks[r].pendingCount > 0, let ids { cprefetch_read(ids + s * idStride) }
                if !due, isDue(tracks[r], at: t, before: true) { due = true }
            }
            return due
        }
    }

    /// Stable sort of `events[from...]` by time and, at equal times, exits before entries
    /// before dwells (a subject crossing from one region into its neighbour leaves the one,
    /// then enters the other; an entry's dwell comes after it). Insertion sort: a fix's
    /// events are few and nearly in order.
    static func sortByTime(_ events: inout [TransitionEvent], from: Int = 0) {
        guard events.count - from > 1 else { return }
        // Moved bitwise (an assignment would retain and release each event's strings), and
        // compared by their fields (an event passed whole is copied).
        events.withUnsafeMutableBufferPointer { buf in
            let base = buf.baseAddress!
            var i = from + 1
            while i < buf.count {
                let t = base[i].time, rank = base[i].kind.timeOrder
                var j = i
                while j > from, t < base[j - 1].time || (t == base[j - 1].time && rank < base[j - 1].kind.timeOrder) {
                    j -= 1
                }
                if j < i {
                    let e = (base + i).move()
                    (base + j + 1).moveInitialize(from: base + j, count: i - j)
                    (base + j).initialize(to: e)
                }
                i += 1
            }
        }
    }

    /// Evaluates a usable fix against nearby regions and the subject's tracked regions.
    ///
    /// - Parameter due: when some of the subject's tracks have a confirmation or a dwell time
    ///   that ran out before `t` (``isDue(_:at:before:)``), the subject's previous fix: those
    ///   are confirmed first, exactly as ``advanceSubject(_:to:before:fix:events:)`` would
    ///   before this fix (in the same pass over the tracks, when the fix is fully evaluated).
    mutating func evaluate(subject si: Int, fix: FixRef, time t: Double, accuracy: Double,
                           trigger: InitialTrigger, due: FixRef?, events: inout [TransitionEvent]) {
        let p = fix.pointee.coordinate
        let lat = p.latitude, lon = p.longitude
        let oldStamp = subjectStates[si].usableStamp
        let fresh = oldStamp < stampCounter
        let queryMargin = fresh ? policy.upperMargin(accuracy: accuracy) : 0
        let span = GeoBox.degreeSpan(meters: queryMargin, atLatitude: lat)

        // A fix inside the subject's safe rectangle (no region added since it was computed)
        // is inside no region but the few it lists: the index is not touched.
        let hit = !fresh && useSafeRects && subjectStates[si].safe.contains(lat: lat, lon: lon)
        if hit {
            safeRectHits &+= 1
            if subjectStates[si].settled, subjectStates[si].deepEpoch == epoch,
               accuracy <= subjectStates[si].deepAccuracy, subjectStates[si].deep.contains(lat: lat, lon: lon) {
                if let due { advanceSubject(si, to: t, before: true, fix: due, events: &events) }
                skipSettled(subject: si, fix: fix, time: t, events: &events)
                return
            }
            // One mutating call: each separate write to the record would check the array's
            // uniqueness.
            if subjectStates[si].stayInEmptyRect(lat: lat, lon: lon, time: t) { return }
        }

        // 1. Candidates from the index: regions the fix is inside of, or (for regions this
        //    subject has never been evaluated against) within the margin of. The closure only
        //    collects slots; distances are computed after the scan.
        //    Inside the safe rectangle, the candidates are the regions it lists.
        var cands = ScratchList(taking: &candidateScratch)
        defer { cands.give(back: &candidateScratch) }
        var newSafe: SafeRect? = nil
        // Each candidate's region record is requested as the index names it, so that its
        // miss overlaps the rest of the scan instead of stalling the distance loop below (a
        // hint only: the address is never read through).
        let hotBase = store.hot.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        let hotStride = MemoryLayout<RegionStore.Hot>.stride
        if fresh {
            index.query(lat: lat, lon: lon, dLat: span.lat, dLon: span.lon) { slot in
                cands.append(Candidate(slot: slot, sd: 0, used: false))
                if let hotBase { prefetch(hotBase + Int(slot) * hotStride, bytes: hotStride) }
            }
            subjectStates[si].safe = .empty
        } else if hit {
            for slot in subjectStates[si].safeSlots { cands.append(Candidate(slot: slot, sd: 0, used: false)) }
        } else if subjectStates[si].rectPause > 0 || !useSafeRects {
            // Rectangles have not been paying off for this subject (dense regions, or fast
            // movement): a plain query, keeping the last rectangle (still valid).
            if subjectStates[si].rectPause > 0 { subjectStates[si].rectPause -= 1 }
            index.query(lat: lat, lon: lon, dLat: 0, dLon: 0) { slot in
                cands.append(Candidate(slot: slot, sd: 0, used: false))
                if let hotBase { prefetch(hotBase + Int(slot) * hotStride, bytes: hotStride) }
            }
        } else {
            var safe = SafeRect.everything
            index.pointQuery(lat: lat, lon: lon, safe: &safe) { slot in
                cands.append(Candidate(slot: slot, sd: 0, used: false))
                if let hotBase { prefetch(hotBase + Int(slot) * hotStride, bytes: hotStride) }
            }
            newSafe = safe
            subjectStates[si].countRectMiss()
        }
        if cands.isEmpty, !subjectStates[si].hasTracks, !fresh {
            // Nothing near and nothing tracked (the common case far from every region).
            subjectStates[si].finishEmpty(newSafe: newSafe, lat: lat, lon: lon, time: t)
            return
        }
        let cart = CartesianPoint(p)
        let margins = policy.margins(accuracy: accuracy)
        let multiCell = queryMargin > 0
        var kept = 0
        // The nearest boundary of a candidate the fix is outside of: until the subject has
        // moved that far, it cannot be inside that region.
        var nearestOutside = Double.infinity
        // The shallowest depth inside a candidate the fix is in, and the worst accuracy
        // still deciding in all of them.
        var nearestInside = Double.infinity
        var decidingAccuracy = Double.infinity
        for i in 0..<cands.count {
            let slot = cands[i].slot
            let s = Int(slot)
            // The index has tested the box; stale entries of removed regions remain.
            guard store.isAlive(s) else { continue }
            if multiCell, (0..<kept).contains(where: { cands[$0].slot == slot }) { continue }
            let sd = store.signedDistance(s, to: p, cartesian: cart)
            if newSafe != nil || hit {
                let reach = store.reliableDistance(s, sd: sd, latitude: lat)
                if sd > 0 {
                    nearestOutside = min(nearestOutside, reach)
                } else {
                    nearestInside = min(nearestInside, reach)
                    if let ratio = policy.maximumAccuracyToSizeRatio {
                        decidingAccuracy = min(decidingAccuracy, ratio * store.hot[s].size)
                    }
                }
            }
            if sd <= 0 || (sd <= queryMargin && store.hot[s].stamp > oldStamp) {
                cands[kept] = Candidate(slot: slot, sd: sd, used: false)
                kept += 1
            }
        }
        let allInside = kept == cands.count
        cands.truncate(to: kept)
        // In slot order, like the tracks, so that step 2 finds each track's candidate by a
        // merge (the index lists a cell's regions in slot order already: one pass, no move).
        cands.insertionSort { $0.slot }
        // Whether the candidates are now exactly the rectangle's regions (for `settled`).
        let candidatesAreSafeSlots = (hit && allInside) || (newSafe != nil && kept <= Engine.safeSlotLimit)
        if hit {
            // Still in the rectangle: move the settled shortcut's area to this fix.
            if allInside, nearestInside.isFinite {
                setDeep(subject: si, within: subjectStates[si].safe, depth: nearestInside,
                        accuracy: decidingAccuracy, lat: lat, lon: lon)
            } else {
                subjectStates[si].deep = .empty
            }
        }
        if var safe = newSafe {
            // Safe: inside the rectangle, not yet as far as the nearest outside candidate's
            // boundary, and only the candidates the fix is inside of to re-check.
            if kept <= Engine.safeSlotLimit {
                if nearestOutside.isFinite {
                    safe.formIntersection(SafeRect.within(meters: nearestOutside, ofLatitude: lat, longitude: lon))
                }
                subjectStates[si].safe = safe
                subjectStates[si].setSafeSlots(cands)
                setDeep(subject: si, within: safe, depth: nearestInside, accuracy: decidingAccuracy, lat: lat, lon: lon)
            } else {
                subjectStates[si].safe = .empty
            }
        }

        // 2. Tracked regions (inside, unknown, pending): always evaluated, in place in a
        //    scratch list (written back by `finish`); first, tracks skipped by the settled
        //    shortcut get the signed distance and time of the last fix that skipped them.
        var tracks = ScratchList(taking: &trackScratch)
        defer { tracks.give(back: &trackScratch) }
        subjectStates[si].tracks.withUnsafeBufferPointer { tracks.append(contentsOf: $0) }
        if subjectStates[si].deferred {
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
        var w = 0
        var c = 0
        var previous = Int32.min
        for r in 0..<tracks.count {
            let s = Int(tracks[r].slot)
            guard store.isAlive(s), store.hot[s].stamp == tracks[r].stamp else { continue }   // removed / replaced
            if let due, isDue(tracks[r], at: t, before: true) {
                // What ran out before this fix (as `advanceSubject` would confirm it); a
                // track left idle is dropped, and re-created below if the fix is inside.
                confirmDue(&tracks[r], at: t, before: true, fix: due, events: &events)
                if tracks[r].isIdle { continue }
            }
            // Its candidate, if any: both lists are in slot order, so a merge finds it
            // (a full search if the tracks were ever out of order).
            var sd = Double.nan
            let slot = tracks[r].slot
            if slot > previous {
                while c < cands.count, cands[c].slot < slot { c += 1 }
                if c < cands.count, cands[c].slot == slot {
                    sd = cands[c].sd
                    cands[c].used = true
                    c += 1
                }
                previous = slot
            } else {
                assertionFailure("tracks out of slot order")
                for k in 0..<cands.count where cands[k].slot == slot {
                    sd = cands[k].sd
                    cands[k].used = true
                    break
                }
            }
            if sd.isNaN { sd = store.signedDistance(s, to: p, cartesian: cart) }
            step(&tracks[r], sd: sd, margins: margins, time: t, fix: fix, trigger: trigger, events: &events)
            if !tracks[r].isIdle {
                if w != r { tracks[w] = tracks[r] }
                w += 1
            }
        }
        tracks.truncate(to: w)

        // 3. Candidates not tracked yet: outside (known) or unknown (new to this subject).
        let prevLat = subjectStates[si].usableLat, prevLon = subjectStates[si].usableLon
        let prevTime = subjectStates[si].usableTime
        let prev = Coordinate(uncheckedLatitude: prevLat, longitude: prevLon)
        var prevCart: CartesianPoint? = nil
        for i in 0..<cands.count where !cands[i].used {
            let c = cands[i]
            let s = Int(c.slot)
            let known = store.hot[s].stamp <= oldStamp
            var tr = Track(slot: c.slot, stamp: store.hot[s].stamp, state: known ? .outside : .unknown)
            if known, !prevLat.isNaN {
                if prevCart == nil { prevCart = CartesianPoint(prev) }
                tr.lastSD = store.signedDistance(s, to: prev, cartesian: prevCart!)
                tr.lastTime = prevTime
            }
            step(&tr, sd: c.sd, margins: margins, time: t, fix: fix, trigger: trigger, events: &events)
            if !tr.isIdle { tracks.append(tr) }
        }
        // The new tracks (in slot order) into their places.
        tracks.insertionSort(from: w) { $0.slot }

        // 4. Initial exits for far regions that asked for them.
        if fresh, !initialExitLog.isEmpty {
            var lo = 0, hi = initialExitLog.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if initialExitLog[mid].stamp <= oldStamp { lo = mid + 1 } else { hi = mid }
            }
            for e in initialExitLog[lo...] {
                let s = Int(e.slot)
                guard store.isAlive(s), store.hot[s].stamp == e.stamp,
                      !cands.contains(where: { $0.slot == e.slot }),
                      !tracks.contains(where: { $0.slot == e.slot }),
                      store.hot[s].flags & RegionStore.Flags.notifyOnExit != 0 else { continue }
                events.append(TransitionEvent(kind: .exit, regionID: store.ids[s], subject: fix.pointee.subject,
                                              fix: fix.pointee, time: fix.pointee.timestamp, crossedAt: fix.pointee.timestamp,
                                              isInitial: true))
            }
        }

        // Settled (the settled shortcut may take the next fix): the tracks are exactly the
        // rectangle's regions — here the candidates, both lists in slot order — each inside
        // with nothing under way (an untracked one could be re-entered unseen). Left false
        // when this fix did not use or make a rectangle: the next fix in the rectangle is
        // then evaluated in full and sets it (reading the rectangle's list was a cache miss).
        var settled = false
        if candidatesAreSafeSlots, tracks.count == cands.count {
            settled = true
            for k in 0..<tracks.count {
                let tr = tracks[k]
                if tr.slot != cands[k].slot || tr.state != .inside || tr.pendingCount != 0 || !tr.crossedAt.isNaN {
                    settled = false
                    break
                }
            }
        }
        subjectStates[si].finish(tracks: tracks.buffer, settled: settled, stamp: stampCounter, lat: lat, lon: lon, time: t)
    }

    /// Sets the settled shortcut's area: the part of `rect` nearer to the fix than `depth`
    /// (the shallowest depth inside the subject's regions; all of `rect` when infinite),
    /// for fixes up to `accuracy`, valid for the current ``epoch``.
    mutating func setDeep(subject si: Int, within rect: SafeRect, depth: Double, accuracy: Double,
                          lat: Double, lon: Double) {
        var deep = rect
        if depth.isFinite { deep.formIntersection(SafeRect.within(meters: depth, ofLatitude: lat, longitude: lon)) }
        subjectStates[si].setDeep(deep, accuracy: accuracy, epoch: epoch)
    }

    /// The settled shortcut: the fix is inside every region the subject tracks, deeper than
    /// any margin can reach, every track is settled inside, and the fix decides in all of
    /// them. Evaluating them would only store each signed distance and time (recorded
    /// here once, for all, and restored when they are next evaluated) and run the dwell
    /// timers (run here), so the geometry is skipped.
    mutating func skipSettled(subject si: Int, fix: FixRef, time t: Double, events: inout [TransitionEvent]) {
        let lat = fix.pointee.coordinate.latitude, lon = fix.pointee.coordinate.longitude
        if subjectStates[si].tracks.contains(where: { $0.dwellArmed && !$0.dwellFired }) {
            var tracks = subjectStates[si].tracks
            subjectStates[si].tracks = []
            for r in tracks.indices { checkDwell(&tracks[r], now: t, eventTime: t, fix: fix, events: &events) }
            subjectStates[si].tracks = tracks
        }
        subjectStates[si].deferTracks(lat: lat, lon: lon, time: t)
        settledSkips &+= 1
    }
}
