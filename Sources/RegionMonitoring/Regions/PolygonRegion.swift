import Foundation
import Geodesy
import Geofencing

/// A polygon to monitor, with optional holes (our addition; Core Location monitors circles
/// only). Edges are straight in longitude / latitude, as in GeoJSON.
public struct PolygonRegion: Sendable, Hashable, Codable {
    public var identifier: String
    /// Outer ring (closed or open, any orientation).
    public var exterior: [Coordinate]
    /// Rings cut out of the exterior.
    public var holes: [[Coordinate]]
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool

    public init(
        exterior: [Coordinate], holes: [[Coordinate]] = [], identifier: String,
        notifyOnEntry: Bool = true, notifyOnExit: Bool = true
    ) {
        self.exterior = exterior
        self.holes = holes
        self.identifier = identifier
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// Whether `coordinate` lies inside the polygon (and outside its holes).
    public func contains(_ coordinate: Coordinate) -> Bool {
        Region(identifier: identifier, shape: .polygon(Polygon(exterior: exterior, holes: holes)))
            .contains(coordinate)
    }
}
