/// Who monitors a region on the device: a location-manager region or a monitor's condition.
///
/// Events are routed by this value, never by taking an engine identifier apart: identifiers
/// are the app's data and may hold any character (U+001F included).
enum RegionOwner: Hashable, Sendable {
    case manager(identifier: String)
    case condition(monitor: String, identifier: String)
}

/// The app's region slots (docs/monitoring.md rule 5), counted in this one place.
///
/// A region holds a slot from its registration until it is stopped, removed or replaced; a
/// registration refused at the limit never holds one, so adding a refused identifier again
/// is refused again while the slots are full. Each holder also gets an engine identifier of
/// its own (`"#1"`, `"#2"`, …) for the life of its slot, so a replaced region starts afresh
/// under a new identifier and no app string ever reaches the engine.
struct RegionSlots {
    private var keys: [RegionOwner: String] = [:]
    private var owners: [String: RegionOwner] = [:]
    private var lastKey: UInt64 = 0

    /// Slots in use.
    var count: Int { keys.count }

    /// Every holder and its engine identifier.
    var holders: [RegionOwner: String] { keys }

    func holds(_ owner: RegionOwner) -> Bool { keys[owner] != nil }

    /// Takes a slot for `owner` (a new one, with a new engine identifier, even if it held one:
    /// a replacement) unless the app's other regions already use `limit`.
    /// - Returns: whether `owner` holds a slot now.
    mutating func claim(_ owner: RegionOwner, limit: Int) -> Bool {
        release(owner)
        guard keys.count < limit else { return false }
        lastKey += 1
        let key = "#\(lastKey)"
        keys[owner] = key
        owners[key] = owner
        return true
    }

    /// Frees `owner`'s slot, if it holds one.
    mutating func release(_ owner: RegionOwner) {
        guard let key = keys.removeValue(forKey: owner) else { return }
        owners[key] = nil
    }

    /// Frees the slots of every owner `matching`.
    mutating func releaseAll(where matching: (RegionOwner) -> Bool) {
        for owner in keys.keys where matching(owner) { release(owner) }
    }

    /// The engine identifier of `owner`'s region, if it holds a slot.
    func engineKey(of owner: RegionOwner) -> String? { keys[owner] }

    /// The owner of the engine region `key`.
    func owner(ofEngineKey key: String) -> RegionOwner? { owners[key] }
}
