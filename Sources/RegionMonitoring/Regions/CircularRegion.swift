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

    public init(center: Coordinate, radius: Double, identifier: String,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
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

    public init(exterior: [Coordinate], holes: [[Coordinate]] = [], identifier: String,
                notifyOnEntry: Bool = true, notifyOnExit: Bool = true) {
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

/// Any region the ``LocationManager`` can monitor; what the delegate receives.
public enum MonitoredRegion: Sendable, Hashable, Codable {
    case circle(CircularRegion)
    case polygon(PolygonRegion)

    public var identifier: String {
        switch self {
        case .circle(let c): c.identifier
        case .polygon(let p): p.identifier
        }
    }
    public var notifyOnEntry: Bool {
        switch self {
        case .circle(let c): c.notifyOnEntry
        case .polygon(let p): p.notifyOnEntry
        }
    }
    public var notifyOnExit: Bool {
        switch self {
        case .circle(let c): c.notifyOnExit
        case .polygon(let p): p.notifyOnExit
        }
    }
    /// Plain geometric containment.
    public func contains(_ coordinate: Coordinate) -> Bool {
        switch self {
        case .circle(let c): c.contains(coordinate)
        case .polygon(let p): p.contains(coordinate)
        }
    }
    /// The circle's radius, or `nil` for polygons.
    public var radius: Double? {
        if case .circle(let c) = self { return c.radius }
        return nil
    }
    /// The size compared with ``DeviceSettings/maximumRegionMonitoringDistance``: a circle's
    /// radius, or the largest distance from a polygon's first vertex to any other vertex.
    var boundaryDistance: Double {
        switch self {
        case .circle(let c): return c.radius
        case .polygon(let p):
            guard let first = p.exterior.first else { return 0 }
            return p.exterior.map { Geodesic.wgs84.inverse(first, $0).distance }.max() ?? 0
        }
    }
}

/// Something ``LocationManager/startMonitoring(for:)`` accepts: ``CircularRegion``,
/// ``PolygonRegion`` or ``MonitoredRegion``.
public protocol GeographicRegion: Sendable {
    var monitoredRegion: MonitoredRegion { get }
}

extension CircularRegion: GeographicRegion {
    public var monitoredRegion: MonitoredRegion { .circle(self) }
}
extension PolygonRegion: GeographicRegion {
    public var monitoredRegion: MonitoredRegion { .polygon(self) }
}
extension MonitoredRegion: GeographicRegion {
    public var monitoredRegion: MonitoredRegion { self }
}

extension MonitoredRegion {
    /// The engine region under a namespaced identifier; notify flags are left on so the
    /// state is tracked and `didDetermineState` fires; the manager applies the flags.
    func engineRegion(id: String, initialTrigger: InitialTrigger = []) -> Region {
        switch self {
        case .circle(let c):
            return Region(identifier: id, shape: .circle(center: c.center, radius: c.radius),
                          initialTrigger: initialTrigger)
        case .polygon(let p):
            return Region(identifier: id, shape: .polygon(Polygon(exterior: p.exterior, holes: p.holes)),
                          initialTrigger: initialTrigger)
        }
    }
}
