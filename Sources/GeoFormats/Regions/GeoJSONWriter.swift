import Geodesy

/// Writes GeoJSON (RFC 7946): regions back to a FeatureCollection, and generic `Point`
/// features (for example transition events) with any properties.
///
/// Output is compact, one feature per line inside the collection, with object keys sorted,
/// so equal input gives byte-identical output.
///
/// ```swift
/// let text = GeoJSONWriter.featureCollection(regions)          // round-trips through the reader
/// var stream = GeoJSONFeatureStream()
/// print(stream.begin, terminator: "")
/// print(stream.add(GeoJSONWriter.pointFeature(at: c, properties: ["event": "enter"])), terminator: "")
/// print(stream.end)
/// ```
public enum GeoJSONWriter {
    /// A `[longitude, latitude]` position.
    public static func position(_ c: Coordinate) -> JSONValue {
        .array([.number(c.longitude), .number(c.latitude)])
    }

    private static func ring(_ r: [Coordinate]) -> JSONValue { .array(r.map(position)) }

    private static func polygon(_ p: RegionPolygon) -> JSONValue {
        .array([ring(p.outer)] + p.holes.map(ring))
    }

    /// The Feature for one region: metadata first, then `id`, `radius`, `dwell`, the
    /// notify flags when false (their default is true), `initialTrigger` when not empty,
    /// `parent` and `source` when set. Reserved names win over metadata.
    public static func feature(_ region: RegionFeature) -> JSONValue {
        var properties = region.metadata
        properties["id"] = .string(region.id)
        let geometry: JSONValue
        switch region.geometry {
        case .circle(let center, let radius):
            geometry = ["type": "Point", "coordinates": position(center)]
            properties["radius"] = .number(radius)
        case .polygon(let p):
            geometry = ["type": "Polygon", "coordinates": polygon(p)]
            properties["radius"] = nil
        case .multiPolygon(let ps):
            geometry = ["type": "MultiPolygon", "coordinates": .array(ps.map(polygon))]
            properties["radius"] = nil
        }
        properties["notifyOnEntry"] = region.notifyOnEntry ? nil : .bool(false)
        properties["notifyOnExit"] = region.notifyOnExit ? nil : .bool(false)
        properties["dwell"] = region.dwell.map(JSONValue.number)
        properties[RegionTier.initialTriggerProperty] =
            region.initialTrigger.isEmpty
            ? nil : .array(region.initialTrigger.sorted().map { .string($0.rawValue) })
        properties[RegionTier.parentProperty] = region.parent.map(JSONValue.string)
        properties[RegionTier.sourceProperty] = region.source.map(JSONValue.string)
        return ["type": "Feature", "geometry": geometry, "properties": .object(properties)]
    }

    /// A FeatureCollection of `regions`, one feature per line.
    public static func featureCollection(_ regions: [RegionFeature]) -> String {
        featureCollection(features: regions.map(feature))
    }

    /// A FeatureCollection of arbitrary features, one per line.
    public static func featureCollection(features: [JSONValue]) -> String {
        var stream = GeoJSONFeatureStream()
        var out = stream.begin
        for f in features { out += stream.add(f) }
        return out + stream.end
    }

    /// A `Point` Feature at `coordinate` with `properties` (for events and other output).
    public static func pointFeature(at coordinate: Coordinate, properties: [String: JSONValue]) -> JSONValue {
        [
            "type": "Feature", "geometry": ["type": "Point", "coordinates": position(coordinate)],
            "properties": .object(properties),
        ]
    }

    /// Compact JSON text of any value (keys sorted).
    public static func text(_ value: JSONValue) -> String { value.description }
}

/// Writes a FeatureCollection piece by piece, so that any number of features can be
/// streamed to a file or standard output without holding them in memory.
public struct GeoJSONFeatureStream: Sendable {
    private var count = 0

    public init() {}

    /// The text that opens the collection.
    public var begin: String { "{\"type\":\"FeatureCollection\",\"features\":[\n" }

    /// The text for one more feature (with the separating comma when needed).
    public mutating func add(_ feature: JSONValue) -> String {
        defer { count += 1 }
        return (count == 0 ? "" : ",\n") + feature.description
    }

    /// The text that closes the collection.
    public var end: String { "\n]}\n" }
}
