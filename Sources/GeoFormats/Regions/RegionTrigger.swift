/// An event kind a region's `initialTrigger` property may name: which events a subject gets
/// when its state in the region is first determined (Android's `INITIAL_TRIGGER_*`).
///
/// In GeoJSON: `"initialTrigger": ["enter", "dwell"]` (an array of these names, each at most
/// once; `[]` or absent for none, Core Location's behaviour). `Geofencing.InitialTrigger` is
/// the engine's option set for the same three names.
public enum RegionTrigger: String, CaseIterable, Hashable, Sendable, Comparable {
    case enter, exit, dwell

    /// Declaration order (`enter`, `exit`, `dwell`): the order the writer uses.
    public static func < (a: RegionTrigger, b: RegionTrigger) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The tier and origin properties of a region, their names and their rules, in one place.
///
/// - `parent`: the id of the region this one is a tier child of (province → city → district);
///   a child is monitored only while the subject is inside its parent. Same rules as an id,
///   and never the region's own id.
/// - `source`: the business or data source the region belongs to; a phone registers the
///   region as `source + "." + id`, so that several sources share the slots without clashes.
///   1 to ``maximumSourceLength`` characters from `A–Z a–z 0–9 - _`.
public enum RegionTier {
    /// The GeoJSON property naming the tier parent.
    public static let parentProperty = "parent"
    /// The GeoJSON property naming the source.
    public static let sourceProperty = "source"
    /// The GeoJSON property listing the initial triggers.
    public static let initialTriggerProperty = "initialTrigger"
    /// Longest source name (it becomes a prefix of every identifier a phone registers).
    public static let maximumSourceLength = 32

    /// Why `source` is not a valid source name, or `nil` when it is.
    public static func problem(source: String) -> String? {
        if source.isEmpty { return "is empty" }
        if source.utf8.count > maximumSourceLength { return "is longer than \(maximumSourceLength) characters" }
        let ok = source.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
        }
        return ok ? nil : "may hold only A–Z, a–z, 0–9, '-' and '_'"
    }
}
