import Foundation
import Geodesy

extension Engine {
    /// The confirmed state of `subject` in the region `regionID` (Core Location's
    /// `requestState`): `unknown` for an unknown subject or region, or until a fix decides it.
    public func state(of subject: String, in regionID: String) -> RegionState {
        guard let i = subjectIndex[subject], let slot = store.slot(of: regionID) else { return .unknown }
        let st = subjectStates[Int(i)]
        let stamp = store.hot[Int(slot)].stamp
        if let tr = st.tracks.first(where: { $0.slot == slot && $0.stamp == stamp }) { return tr.state }
        return stamp <= st.usableStamp ? .outside : .unknown
    }

    /// The regions `subject` is confirmed inside, by identifier.
    public func regionsContaining(subject: String) -> [String] {
        guard let i = subjectIndex[subject] else { return [] }
        return subjectStates[Int(i)].tracks.compactMap { tr in
            let s = Int(tr.slot)
            guard tr.state == .inside, store.isAlive(s), store.hot[s].stamp == tr.stamp else { return nil }
            return store.ids[s]
        }
    }

    /// Identifiers of the regions where `subject` has a transition pending (seen past the
    /// margin, not yet confirmed).
    public func pendingRegions(of subject: String) -> [String] {
        guard let i = subjectIndex[subject] else { return [] }
        return subjectStates[Int(i)].tracks.compactMap { tr in
            let s = Int(tr.slot)
            guard tr.pendingCount > 0, store.isAlive(s), store.hot[s].stamp == tr.stamp else { return nil }
            return store.ids[s]
        }
    }

    /// The handle of `subject` for the fast ``process(_:subject:initialTrigger:into:)``;
    /// registers the subject (with no state yet) if the engine has not seen it, so it then
    /// appears in ``subjects``. The same subject always gets the same handle.
    public mutating func handle(for subject: String) -> SubjectHandle {
        if let i = subjectIndex[subject] { return SubjectHandle(rawValue: i) }
        let i = Int32(subjectStates.count)
        subjectIndex[subject] = i
        subjectStates.append(SubjectState(name: subject))
        return SubjectHandle(rawValue: i)
    }

    /// The handle of a subject the engine already knows (from a fix or ``handle(for:)``).
    public func existingHandle(for subject: String) -> SubjectHandle? {
        subjectIndex[subject].map { SubjectHandle(rawValue: $0) }
    }

    /// Every subject that has sent a fix or been given a handle, in order of first appearance.
    public var subjects: [String] { subjectStates.map(\.name) }

    /// The last fix accepted for `subject`.
    public func lastFix(of subject: String) -> LocationFix? {
        guard let i = subjectIndex[subject], !subjectStates[Int(i)].lastLat.isNaN else { return nil }
        return recordedFix(of: Int(i))
    }

    /// Forgets everything about `subject` (its states become `unknown`, and its next fix may
    /// have any timestamp). Returns whether the subject was known.
    @discardableResult
    public mutating func resetSubject(_ subject: String) -> Bool {
        guard let i = subjectIndex[subject] else { return false }
        subjectStates[Int(i)] = SubjectState(name: subject)
        return true
    }

    /// Subject `si`'s last fix, rebuilt from its recorded fields (there must be one; NaN
    /// fields are absent ones). Reads the fields one by one: a computed property of an
    /// array element copied the whole record (retaining its arrays) to run.
    @inline(__always)
    func recordedFix(of si: Int) -> LocationFix {
        let accuracy = subjectStates[si].lastAccuracy
        let speed = subjectStates[si].lastSpeed
        let course = subjectStates[si].lastCourse
        return LocationFix(
            subject: subjectStates[si].name,
            coordinate: Coordinate(
                uncheckedLatitude: subjectStates[si].lastLat,
                longitude: subjectStates[si].lastLon),
            horizontalAccuracy: accuracy.isNaN ? nil : accuracy,
            timestamp: Date(timeIntervalSinceReferenceDate: subjectStates[si].lastTime),
            speed: speed.isNaN ? nil : speed, course: course.isNaN ? nil : course)
    }
}

extension Engine {
    /// Takes `subject`'s whole state (tracks, last fix, shortcuts) from `other`, a copy of this
    /// engine whose regions and policy have not changed since it was made: how a replay that
    /// ran each subject on its own copy of the engine (one per thread, sharing the regions)
    /// gathers the subjects back. Returns false, changing nothing, when `other` does not know
    /// the subject or its regions or policy differ from this engine's.
    package mutating func adoptSubject(_ subject: String, from other: Engine) -> Bool {
        guard other.catalogueGeneration === catalogueGeneration, other.stampCounter == stampCounter,
            other.epoch == epoch, let j = other.subjectIndex[subject]
        else { return false }
        let state = other.subjectStates[Int(j)]
        if let i = subjectIndex[subject] {
            subjectStates[Int(i)] = state
        } else {
            subjectIndex[subject] = Int32(subjectStates.count)
            subjectStates.append(state)
        }
        return true
    }
}
