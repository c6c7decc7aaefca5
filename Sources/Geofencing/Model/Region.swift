import Foundation
import Geodesy

/// A named area whose boundary crossings the ``Engine`` reports.
///
/// A region is a circle (geodesic radius on WGS84) or a polygon / multipolygon with holes
/// (GeoJSON semantics: straight edges in longitude / latitude, antimeridian handled), plus
/// what to report about it.
///
/// ```swift
/// let bridge = Region(identifier: "bridge-1",
///                     shape: .circle(center: try Coordinate(latitude: 31.239394, longitude: 121.499781),
///                                    radius: 2_000),
///                     dwell: 300)
/// bridge.signedDistance(to: somePoint)   // metres, negative inside
/// ```
///
/// - `notifyOnEntry` / `notifyOnExit` (default `true`) gate the events; the state is tracked
///   either way (Core Location semantics).
/// - `dwell` (seconds): emit a `.dwell` event once the subject has been inside this long
///   (Android's loitering delay); `nil` for none.
/// - `initialTrigger`: which events to emit when a subject's state in this region is first
///   determined (Android's initial trigger). Empty by default, like Core Location, which
///   gives no event for "already inside".
/// - `metadata` is carried along untouched (stored out of line by the engine).
///
/// Validation (``validate()``) rejects radii that are not finite, ≤ 0 or above
/// ``Region/maximumRadius``, degenerate polygons, rings that cross or touch themselves or each
/// other, holes outside their outer ring or inside another hole, polygons of more than
/// ``Region/maximumVertexCount`` vertices, bad dwell times and empty identifiers.
public struct Region: Sendable, Hashable {
    /// The largest circle radius accepted: 10,000 km (a circle that size covers half the Earth).
    public static let maximumRadius: Double = 10_000_000
    /// The most vertices one polygon holds, its holes included (a detailed national border
    /// has tens of thousands): what bounds the cost of validating it.
    public static let maximumVertexCount = 250_000

    /// Unique key within an engine; adding a region with an existing identifier replaces it.
    public var identifier: String
    /// The area.
    public var shape: RegionShape
    /// Report `.enter` events (default `true`).
    public var notifyOnEntry: Bool
    /// Report `.exit` events (default `true`).
    public var notifyOnExit: Bool
    /// Seconds inside before a `.dwell` event, or `nil` for no dwell events.
    public var dwell: TimeInterval?
    /// Events to emit when a subject's state is first determined.
    public var initialTrigger: InitialTrigger
    /// Free-form properties kept with the region.
    public var metadata: [String: String]

    public init(
        identifier: String, shape: RegionShape, notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true, dwell: TimeInterval? = nil,
        initialTrigger: InitialTrigger = [], metadata: [String: String] = [:]
    ) {
        self.identifier = identifier
        self.shape = shape
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwell = dwell
        self.initialTrigger = initialTrigger
        self.metadata = metadata
    }

    /// A circular region: `radius` metres (geodesic) around `center`.
    public static func circle(
        identifier: String, center: Coordinate, radius: Double,
        notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
        dwell: TimeInterval? = nil, initialTrigger: InitialTrigger = [],
        metadata: [String: String] = [:]
    ) -> Region {
        Region(
            identifier: identifier, shape: .circle(center: center, radius: radius),
            notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, dwell: dwell,
            initialTrigger: initialTrigger, metadata: metadata)
    }

    /// Signed distance from `point` to the region's boundary in metres: negative inside,
    /// positive outside. Circles use the geodesic distance on WGS84; polygons use a local
    /// ellipsoidal tangent-plane distance to their straight (longitude / latitude) edges.
    /// Assumes a valid region (see ``validate()``).
    public func signedDistance(to point: Coordinate) -> Double {
        switch shape {
        case .circle(let center, let radius):
            return GeodesicCircle(center: center, radius: radius).signedDistance(to: point)
        case .polygon, .multiPolygon:
            return PreparedArea(shape)?.signedDistance(
                latitude: point.latitude,
                longitude: point.longitude) ?? .infinity
        }
    }

    /// Whether `point` is inside the region or on its boundary.
    public func contains(_ point: Coordinate) -> Bool { signedDistance(to: point) <= 0 }
}

/// The geometry of a ``Region``.
public enum RegionShape: Sendable, Hashable {
    /// A geodesic circle: `radius` metres around `center`.
    case circle(center: Coordinate, radius: Double)
    /// One polygon, optionally with holes.
    case polygon(Polygon)
    /// Several polygons; a point is inside when it is inside any of them. The parts should
    /// not overlap (GeoJSON); an antimeridian-split polygon is a valid multipolygon.
    case multiPolygon([Polygon])
}

/// A polygon with optional holes; edges are straight lines in longitude / latitude (GeoJSON).
///
/// Rings may be closed (last vertex equal to the first) or open. Orientation does not
/// matter. A ring that crosses the antimeridian is read the short way round (consecutive
/// vertices are never more than 180° of longitude apart).
public struct Polygon: Sendable, Hashable {
    /// The outer ring.
    public var exterior: [Coordinate]
    /// Rings cut out of the exterior.
    public var holes: [[Coordinate]]

    public init(exterior: [Coordinate], holes: [[Coordinate]] = []) {
        self.exterior = exterior
        self.holes = holes
    }
}

/// Which events to emit when a subject's state in a region is first determined
/// (Android's `INITIAL_TRIGGER_ENTER` / `_EXIT` / `_DWELL`).
///
/// With `.enter`, a subject found inside gets an `.enter` event (marked `isInitial`); with
/// `.exit`, one found outside gets an `.exit`; with `.dwell`, a subject found inside starts
/// its dwell timer at that fix (without it, dwell is only measured from a real entry).
public struct InitialTrigger: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let enter = InitialTrigger(rawValue: 1)
    public static let exit = InitialTrigger(rawValue: 2)
    public static let dwell = InitialTrigger(rawValue: 4)
}
