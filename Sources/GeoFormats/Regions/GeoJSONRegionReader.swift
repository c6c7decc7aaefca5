import Geodesy

import struct Foundation.URL

/// Reads regions from a GeoJSON (RFC 7946) FeatureCollection, or a single Feature.
///
/// - circle: a `Point` feature with `properties.radius` in metres (0 < r ≤
///   ``RegionFeature/maximumRadius``);
/// - `Polygon` (outer ring, then holes) and `MultiPolygon`; each ring closed, ≥ 4 positions;
/// - `properties.id`: a non-empty string (an integer is taken as its decimal text; the
///   feature's top-level `id` is used when `properties.id` is absent), unique in the file;
/// - optional `notifyOnEntry`, `notifyOnExit` (booleans, default true), `dwell` (seconds),
///   `initialTrigger` (an array of `"enter"`, `"exit"`, `"dwell"`), and the tier properties
///   `parent` and `source` (``RegionTier``);
/// - every other property kept in ``RegionFeature/metadata``.
/// Positions are `[longitude, latitude]` (an extra altitude is ignored), latitude in
/// [-90, 90], longitude in [-180, 180]. The first problem found is thrown, naming the
/// feature index (and coordinate path) or the JSON line and column. O(n) in the input.
///
/// ```swift
/// let regions = try GeoJSONRegionReader.read(contentsOf: URL(fileURLWithPath: "regions.geojson"))
/// ```
public enum GeoJSONRegionReader {
    /// Reads the file at `url`.
    public static func read(contentsOf url: URL) throws(GeoJSONError) -> [RegionFeature] {
        try read(path: url.path)
    }

    /// Reads the file at `path`.
    public static func read(path: String) throws(GeoJSONError) -> [RegionFeature] {
        try read(bytes: contents(of: path))
    }

    /// The bytes of the file at `path`.
    static func contents(of path: String) throws(GeoJSONError) -> [UInt8] {
        let source: ByteSource
        switch ByteSource.open(path: path) {
        case .success(let s): source = s
        case .failure(let why): throw .unreadable(why.message)
        }
        let bytes = source.readAll()
        if let e = source.readError { throw .unreadable("\(path): \(e)") }
        return bytes
    }

    /// Reads GeoJSON text.
    public static func read(string: String) throws(GeoJSONError) -> [RegionFeature] {
        try read(bytes: Array(string.utf8))
    }

    /// Reads GeoJSON bytes (UTF-8, an optional byte-order mark allowed).
    public static func read(bytes input: [UInt8]) throws(GeoJSONError) -> [RegionFeature] {
        var bytes = input
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { throw .emptyInput }
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = JSONParser.location(of: error.offset, in: bytes)
            throw .invalidJSON(line: line, column: column, reason: error.message)
        }
        return try read(document: root)
    }

    /// Reads an already parsed GeoJSON document (a FeatureCollection or a single Feature),
    /// for callers that hold the JSON tree (a server that parsed a request body).
    public static func read(document root: JSONValue) throws(GeoJSONError) -> [RegionFeature] {
        let features: [JSONValue]
        switch root["type"] {
        case .string("FeatureCollection")?:
            guard let list = root["features"]?.arrayValue else {
                throw .invalidDocument("'features' is missing or not an array")
            }
            features = list
        case .string("Feature")?:
            features = [root]
        case let other?:
            throw .invalidDocument("top-level type is \(other), expected \"FeatureCollection\" or \"Feature\"")
        case nil:
            throw .invalidDocument(
                root.objectValue == nil
                    ? "the top-level value is a \(root.typeName), not an object" : "no top-level 'type'")
        }
        var out: [RegionFeature] = []
        out.reserveCapacity(features.count)
        var seen: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            let region: RegionFeature
            do {
                region = try self.feature(feature)
            } catch {
                throw .invalidFeature(index: index, problem: error)
            }
            if let first = seen[region.id] { throw .duplicateID(region.id, firstIndex: first, secondIndex: index) }
            seen[region.id] = index
            out.append(region)
        }
        return out
    }

    typealias Problem = GeoJSONError.FeatureProblem

    static func feature(_ f: JSONValue) throws(Problem) -> RegionFeature {
        guard f.objectValue != nil else { throw .notAFeature(f.typeName) }
        guard case .string("Feature")? = f["type"] else { throw .notAFeature(f["type"]?.description ?? "missing") }
        let properties: [String: JSONValue]
        switch f["properties"] {
        case nil, .null?: properties = [:]
        case .object(let o)?: properties = o
        case let other?:
            _ = other
            throw .invalidProperty(name: "properties", expected: "object")
        }
        let id = try identifier(properties["id"] ?? f["id"])
        guard let geometry = f["geometry"], geometry.objectValue != nil else { throw .missingGeometry }
        guard let type = geometry["type"]?.stringValue else {
            throw .unsupportedGeometry(geometry["type"]?.description ?? "missing")
        }
        let coordinates = geometry["coordinates"] ?? .null
        let shape: RegionGeometry
        switch type {
        case "Point":
            let center = try position(coordinates, path: "coordinates")
            guard let r = properties["radius"] else { throw .missingRadius }
            guard let radius = r.doubleValue else { throw .invalidProperty(name: "radius", expected: "number") }
            guard radius.isFinite, radius > 0 else { throw .invalidRadius(radius) }
            guard radius <= RegionFeature.maximumRadius else { throw .radiusTooLarge(radius) }
            shape = .circle(center: center, radius: radius)
        case "Polygon":
            shape = .polygon(try polygon(coordinates, path: "coordinates"))
        case "MultiPolygon":
            guard let polys = coordinates.arrayValue, !polys.isEmpty else {
                throw .invalidCoordinates(
                    path: "coordinates", reason: "a MultiPolygon needs a non-empty array of polygons")
            }
            var list: [RegionPolygon] = []
            for (i, p) in polys.enumerated() { list.append(try polygon(p, path: "coordinates[\(i)]")) }
            shape = .multiPolygon(list)
        default:
            throw .unsupportedGeometry(type)
        }
        let notifyOnEntry = try flag(properties, "notifyOnEntry")
        let notifyOnExit = try flag(properties, "notifyOnExit")
        var dwell: Double?
        switch properties["dwell"] {
        case nil, .null?: dwell = nil
        case .number(let d)?:
            guard d.isFinite, d >= 0 else { throw .invalidDwell(d) }
            dwell = d
        default: throw .invalidProperty(name: "dwell", expected: "number")
        }
        let triggers = try initialTrigger(properties[RegionTier.initialTriggerProperty])
        let parent = try parent(properties[RegionTier.parentProperty], of: id)
        let source = try source(properties[RegionTier.sourceProperty])
        var metadata = properties
        for key in RegionFeature.reservedProperties { metadata[key] = nil }
        return RegionFeature(
            id: id, geometry: shape, notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit,
            dwell: dwell, initialTrigger: triggers, parent: parent, source: source, metadata: metadata)
    }

    private static func initialTrigger(_ v: JSONValue?) throws(Problem) -> Set<RegionTrigger> {
        switch v {
        case nil, .null?: return []
        case .array(let items)?:
            var out: Set<RegionTrigger> = []
            for item in items {
                guard let name = item.stringValue else {
                    throw .invalidProperty(
                        name: RegionTier.initialTriggerProperty, expected: "array of \"enter\", \"exit\", \"dwell\"")
                }
                guard let t = RegionTrigger(rawValue: name) else {
                    throw .invalidInitialTrigger(
                        "names \"\(name.prefix(40))\", expected \"enter\", \"exit\" or \"dwell\"")
                }
                guard out.insert(t).inserted else { throw .invalidInitialTrigger("names \"\(name)\" twice") }
            }
            return out
        default:
            throw .invalidProperty(
                name: RegionTier.initialTriggerProperty, expected: "array of \"enter\", \"exit\", \"dwell\"")
        }
    }

    private static func parent(_ v: JSONValue?, of id: String) throws(Problem) -> String? {
        switch v {
        case nil, .null?: return nil
        case .string(let p)?:
            guard !p.isEmpty else { throw .invalidParent("is empty") }
            guard p != id else { throw .invalidParent("names the region itself") }
            return p
        default: throw .invalidProperty(name: RegionTier.parentProperty, expected: "string")
        }
    }

    private static func source(_ v: JSONValue?) throws(Problem) -> String? {
        switch v {
        case nil, .null?: return nil
        case .string(let s)?:
            if let why = RegionTier.problem(source: s) { throw .invalidSource(why) }
            return s
        default: throw .invalidProperty(name: RegionTier.sourceProperty, expected: "string")
        }
    }

    private static func identifier(_ v: JSONValue?) throws(Problem) -> String {
        switch v {
        case nil, .null?: throw .missingID
        case .string(let s)?:
            guard !s.isEmpty else { throw .emptyID }
            return s
        case .number(let n)? where n == n.rounded() && abs(n) < 9_007_199_254_740_992:
            return String(Int64(n))
        case let other?: throw .invalidID(other.typeName)
        }
    }

    private static func flag(_ properties: [String: JSONValue], _ name: String) throws(Problem) -> Bool {
        switch properties[name] {
        case nil, .null?: true
        case .bool(let b)?: b
        default: throw .invalidProperty(name: name, expected: "boolean")
        }
    }

    static func position(_ v: JSONValue, path: String) throws(Problem) -> Coordinate {
        guard let a = v.arrayValue, a.count >= 2, let lon = a[0].doubleValue, let lat = a[1].doubleValue else {
            throw .invalidCoordinates(path: path, reason: "a position must be [longitude, latitude]")
        }
        guard lat.isFinite, lon.isFinite, (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon) else {
            throw .coordinateOutOfRange(path: path, latitude: lat, longitude: lon)
        }
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }

    private static func ring(_ v: JSONValue, path: String) throws(Problem) -> [Coordinate] {
        guard let positions = v.arrayValue else {
            throw .invalidCoordinates(path: path, reason: "a ring must be an array of positions")
        }
        var ring: [Coordinate] = []
        ring.reserveCapacity(positions.count)
        for (i, p) in positions.enumerated() { ring.append(try position(p, path: "\(path)[\(i)]")) }
        guard ring.count >= 4 else { throw .ringTooShort(path: path, count: ring.count) }
        // Compare the raw numbers: the closing position must repeat the first exactly.
        guard positions.first?.arrayValue?.prefix(2) == positions.last?.arrayValue?.prefix(2) else {
            throw .ringNotClosed(path: path)
        }
        return ring
    }

    private static func polygon(_ v: JSONValue, path: String) throws(Problem) -> RegionPolygon {
        guard let rings = v.arrayValue, !rings.isEmpty else {
            throw .invalidCoordinates(path: path, reason: "a polygon needs a non-empty array of rings")
        }
        let outer = try ring(rings[0], path: "\(path)[0]")
        var holes: [[Coordinate]] = []
        for i in 1..<rings.count { holes.append(try ring(rings[i], path: "\(path)[\(i)]")) }
        return RegionPolygon(outer: outer, holes: holes)
    }
}
