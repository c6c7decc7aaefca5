import Geodesy

/// A polygon as GeoJSON has it: one outer ring and any number of holes, each ring closed
/// (first position equals last) with at least four positions.
public struct RegionPolygon: Hashable, Sendable {
    /// The boundary, closed.
    public var outer: [Coordinate]
    /// Rings cut out of the polygon, each closed.
    public var holes: [[Coordinate]]

    public init(outer: [Coordinate], holes: [[Coordinate]] = []) {
        self.outer = outer
        self.holes = holes
    }
}

/// The shape of a region as read from GeoJSON.
public enum RegionGeometry: Hashable, Sendable {
    /// A `Point` feature with `properties.radius` (metres, geodesic).
    case circle(center: Coordinate, radius: Double)
    /// A `Polygon` feature.
    case polygon(RegionPolygon)
    /// A `MultiPolygon` feature.
    case multiPolygon([RegionPolygon])
}

/// A region as a GeoJSON feature describes it: plain data, validated, independent of the
/// engine (`Geofencing` turns it into its own `Region`).
///
/// ```swift
/// let regions = try GeoJSONRegionReader.read(contentsOf: url)
/// for r in regions { print(r.id, r.geometry, r.metadata["name"] ?? "") }
/// let text = GeoJSONWriter.featureCollection(regions)     // back to GeoJSON
/// ```
public struct RegionFeature: Hashable, Sendable {
    /// The largest accepted circle radius, 10,000 km: about a quarter of a meridian, beyond
    /// which a "circle" folds over the far side of the Earth and inside/outside stops
    /// meaning what users expect.
    public static let maximumRadius = 10_000_000.0

    /// Non-empty, unique within a file.
    public var id: String
    public var geometry: RegionGeometry
    /// Report entries (default true).
    public var notifyOnEntry: Bool
    /// Report exits (default true).
    public var notifyOnExit: Bool
    /// Seconds inside before a dwell event, if any.
    public var dwell: Double?
    /// Events to emit when a subject's state is first determined (empty: none).
    public var initialTrigger: Set<RegionTrigger>
    /// The tier parent's id (``RegionTier``), `nil` for a top-tier region.
    public var parent: String?
    /// The business or data source (``RegionTier``), `nil` for none.
    public var source: String?
    /// Every other property of the feature, unchanged.
    public var metadata: [String: JSONValue]

    public init(
        id: String, geometry: RegionGeometry, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        dwell: Double? = nil, initialTrigger: Set<RegionTrigger> = [], parent: String? = nil,
        source: String? = nil, metadata: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.geometry = geometry
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwell = dwell
        self.initialTrigger = initialTrigger
        self.parent = parent
        self.source = source
        self.metadata = metadata
    }

    /// The property names with a meaning of their own; all others go to ``metadata``.
    public static let reservedProperties: Set<String> = [
        "id", "radius", "notifyOnEntry", "notifyOnExit", "dwell",
        RegionTier.initialTriggerProperty, RegionTier.parentProperty, RegionTier.sourceProperty,
    ]
}
