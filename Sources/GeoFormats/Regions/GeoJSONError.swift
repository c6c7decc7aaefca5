/// Why a GeoJSON regions file was rejected, and where.
///
/// Positions are 1-based line and column for JSON syntax errors, and the 0-based index of
/// the feature in the `features` array otherwise (with a coordinate path such as
/// `coordinates[1][0][3]` for geometry problems).
///
/// ```swift
/// // "feature 4: duplicate id 'bridge-1' (also feature 1)"
/// ```
public enum GeoJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(String)
    /// The input is empty or blank.
    case emptyInput
    /// Not valid JSON.
    case invalidJSON(line: Int, column: Int, reason: String)
    /// Valid JSON, but not a FeatureCollection or Feature.
    case invalidDocument(String)
    /// Feature `index` is wrong in the way `problem` says.
    case invalidFeature(index: Int, problem: FeatureProblem)
    /// Two features share an id.
    case duplicateID(String, firstIndex: Int, secondIndex: Int)

    /// What is wrong with one feature.
    public enum FeatureProblem: Error, Equatable, Sendable, CustomStringConvertible {
        /// `type` is not `"Feature"` (the found JSON type or value).
        case notAFeature(String)
        /// No `geometry` object.
        case missingGeometry
        /// A geometry type other than Point, Polygon or MultiPolygon.
        case unsupportedGeometry(String)
        /// No `properties.id` (nor a feature `id`).
        case missingID
        /// The id is neither a string nor an integer (the found JSON type).
        case invalidID(String)
        /// The id is an empty string.
        case emptyID
        /// A Point feature without `properties.radius`.
        case missingRadius
        /// A radius that is not a finite number above zero.
        case invalidRadius(Double)
        /// A radius above ``RegionFeature/maximumRadius``.
        case radiusTooLarge(Double)
        /// A property of the wrong type (`notifyOnEntry` not a boolean, ...).
        case invalidProperty(name: String, expected: String)
        /// A dwell time that is not a finite number ≥ 0.
        case invalidDwell(Double)
        /// An `initialTrigger` entry that is not `"enter"`, `"exit"` or `"dwell"`, or repeats one.
        case invalidInitialTrigger(String)
        /// A `parent` that is empty or names the region itself.
        case invalidParent(String)
        /// A `source` that breaks ``RegionTier``'s rule (the reason).
        case invalidSource(String)
        /// The coordinates at `path` are not the array structure the geometry needs.
        case invalidCoordinates(path: String, reason: String)
        /// A position with a latitude outside [-90, 90] or a longitude outside [-180, 180],
        /// or a non-finite number.
        case coordinateOutOfRange(path: String, latitude: Double, longitude: Double)
        /// A ring whose last position differs from its first.
        case ringNotClosed(path: String)
        /// A ring with fewer than four positions.
        case ringTooShort(path: String, count: Int)

        public var description: String {
            switch self {
            case .notAFeature(let t): "type is \(t), expected \"Feature\""
            case .missingGeometry: "no geometry"
            case .unsupportedGeometry(let t):
                "geometry type '\(t)' is not supported (Point with radius, Polygon, MultiPolygon)"
            case .missingID: "no properties.id"
            case .invalidID(let t): "id is a \(t), expected a string"
            case .emptyID: "id is empty"
            case .missingRadius: "a Point region needs properties.radius (metres)"
            case .invalidRadius(let r): "radius \(r) is not a finite number above 0"
            case .radiusTooLarge(let r): "radius \(r) m is above the maximum \(RegionFeature.maximumRadius) m"
            case .invalidProperty(let n, let e): "property '\(n)' must be a \(e)"
            case .invalidDwell(let d): "dwell \(d) is not a finite number of seconds ≥ 0"
            case .invalidInitialTrigger(let why): "initialTrigger \(why)"
            case .invalidParent(let why): "parent \(why)"
            case .invalidSource(let why): "source \(why)"
            case .invalidCoordinates(let p, let r): "\(p): \(r)"
            case .coordinateOutOfRange(let p, let lat, let lon):
                "\(p): position (longitude \(lon), latitude \(lat)) is out of range"
            case .ringNotClosed(let p): "\(p): ring is not closed (last position must equal the first)"
            case .ringTooShort(let p, let n): "\(p): ring has \(n) positions, at least 4 needed"
            }
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let why): "cannot read regions: \(why)"
        case .emptyInput: "the regions file is empty"
        case .invalidJSON(let l, let c, let r): "line \(l), column \(c): invalid JSON: \(r)"
        case .invalidDocument(let why): "not a GeoJSON FeatureCollection: \(why)"
        case .invalidFeature(let i, let p): "feature \(i): \(p)"
        case .duplicateID(let id, let a, let b): "feature \(b): duplicate id '\(id)' (also feature \(a))"
        }
    }
}
