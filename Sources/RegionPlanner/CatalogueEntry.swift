import Geofencing

/// One region of a planner catalogue: the region itself and its place in the tiers.
///
/// ```swift
/// let province = CatalogueEntry(region: .circle(identifier: "zj", center: c, radius: 80_000),
///                               hasChildren: true)           // its cities come from the loader
/// let city = CatalogueEntry(region: hangzhou, parent: "zj")  // what a loader returns
/// ```
///
/// The catalogue identifier is `region.identifier`, unique within one ``Catalogue``; the
/// planner registers it under its source's prefix (``PlannerSource/prefix``).
public struct CatalogueEntry: Sendable, Hashable {
    /// The region to monitor (its `identifier` is the catalogue key).
    public var region: Region
    /// The identifier of the parent entry for a tier child, `nil` for a top-level entry.
    public var parent: String?
    /// Whether entering this entry should load its children through the source's loader.
    public var hasChildren: Bool

    /// `parent` defaults to the region's own tier parent (``Region/parent``, the GeoJSON
    /// property `parent`), so a catalogue read from GeoJSON keeps its tiers.
    public init(region: Region, parent: String? = nil, hasChildren: Bool = false) {
        self.region = region
        self.parent = parent ?? region.parent
        self.hasChildren = hasChildren
    }

    /// The catalogue key: `region.identifier`.
    public var identifier: String { region.identifier }
}

/// A catalogue entry with its signed distance from a query point.
public struct NearbyEntry: Sendable, Hashable {
    /// The entry.
    public var entry: CatalogueEntry
    /// Signed distance (metres) from the query point to the region's boundary, negative inside.
    public var distance: Double
}
