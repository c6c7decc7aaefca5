import Foundation
import Geodesy
import Geofencing

/// A circle to monitor: `radius` metres (geodesic, WGS84) around `center`
/// (Core Location's `CLCircularRegion`).
///
/// ```swift
/// let bridge = CircularRegion(center: try Coordinate(latitude: 51.5, longitude: -0.1),
///                             radius: 500, identifier: "low-bridge")
/// bridge.contains(fix.coordinate)   // plain geometry, no hysteresis
/// ```
///
/// `contains(_:)` is exact geometry; the monitoring layer adds hysteresis (a margin past the
/// boundary held for a confirmation time) before it reports a crossing.
public struct CircularRegion: Sendable, Hashable, Codable {
    /// Unique key: starting to monitor a region with the same identifier replaces the old one.
    public var identifier: String
    public var center: Coordinate
    /// Radius in metres.
    public var radius: Double
    /// Report entries (`didEnterRegion`); default `true`.
    public var notifyOnEntry: Bool
    /// Report exits (`didExitRegion`); default `true`.
    public var notifyOnExit: Bool

    public init(
        center: Coordinate, radius: Double, identifier: String,
        notifyOnEntry: Bool = true, notifyOnExit: Bool = true
    ) {
        self.center = center
        self.radius = radius
        self.identifier = identifier
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// Whether `coordinate` lies inside or on the circle (geodesic distance ≤ radius).
    public func contains(_ coordinate: Coordinate) -> Bool {
        GeodesicCircle(center: center, radius: radius).contains(coordinate)
    }
}
