/// A latitude / longitude box, degrees, for spatial indexes.
///
/// ```swift
/// let box = GeodesicCircle(center: c, radius: 500).boundingBox
/// if box.contains(p) { /* candidate */ }
/// ```
///
/// `west > east` means the box crosses the antimeridian (it covers `west…180` and
/// `-180…east`), as in GeoJSON (RFC 7946 §5.2). A box around a pole spans all longitudes
/// (`west = -180`, `east = 180`). Membership is O(1).
public struct GeoBoundingBox: Sendable, Hashable, CustomStringConvertible {
    /// Southern edge, degrees, ≥ -90.
    public var south: Double
    /// Northern edge, degrees, ≤ 90.
    public var north: Double
    /// Western edge, degrees, in [-180, 180].
    public var west: Double
    /// Eastern edge, degrees, in [-180, 180].
    public var east: Double

    public init(south: Double, north: Double, west: Double, east: Double) {
        self.south = south
        self.north = north
        self.west = west
        self.east = east
    }

    /// Whether the box crosses the antimeridian.
    public var crossesAntimeridian: Bool { west > east }
    /// Whether the box spans every longitude.
    public var spansAllLongitudes: Bool { west == -180 && east == 180 }

    /// Whether `point` is inside the box or on its edge.
    public func contains(_ point: Coordinate) -> Bool {
        guard point.latitude >= south, point.latitude <= north else { return false }
        let lon = point.longitude
        if west <= east { return lon >= west && lon <= east }
        return lon >= west || lon <= east
    }

    public var description: String { "[\(south)…\(north)] × [\(west)…\(east)]" }
}
