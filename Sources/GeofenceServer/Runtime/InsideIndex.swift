/// Which devices may be inside each region: the inverse of the engine's per-device tracks, so
/// that "the devices inside region R" is a look-up of R's devices instead of a pass over every
/// device of the tenant.
///
/// Invariant: every device the engine has confirmed inside a region is listed under it. Only a
/// fix can put a device inside a region (a new or replaced region is `unknown` to every device
/// until its next fix), and ``TenantRuntime`` updates a device's entry after every batch it
/// runs through the engine and rebuilds the whole index whenever it replaces the engine. The
/// converse does not hold: a region replaced or deleted leaves its devices listed until their
/// next fix, so a reader checks each listed device against the engine
/// (``TenantRuntime/devices(inside:)``).
struct InsideIndex {
    private var regionsOf: [String: [String]] = [:]
    private var devicesIn: [String: Set<String>] = [:]

    /// The devices listed under `region` (a superset of those inside it now).
    func devices(in region: String) -> Set<String> { devicesIn[region] ?? [] }

    /// Records that `device` is inside exactly `regions` now. O(regions before and after).
    mutating func update(device: String, inside regions: [String]) {
        let before = regionsOf[device] ?? []
        for r in before where !regions.contains(r) {
            devicesIn[r]?.remove(device)
            if devicesIn[r]?.isEmpty == true { devicesIn[r] = nil }
        }
        // Every region inserted, not only the new ones: a list forgotten since holds it again.
        for r in regions { devicesIn[r, default: []].insert(device) }
        regionsOf[device] = regions.isEmpty ? nil : regions
    }

    /// Drops a deleted region's list (its devices' own entries are corrected at their next
    /// fix; a region created again under the id is listed afresh by ``update(device:inside:)``).
    mutating func forget(region: String) { devicesIn[region] = nil }

    /// The index of every device the engine knows. O(devices), once per engine load.
    static func build(devices: [String], regionsContaining: (String) -> [String]) -> InsideIndex {
        var index = InsideIndex()
        for d in devices { index.update(device: d, inside: regionsContaining(d)) }
        return index
    }
}
