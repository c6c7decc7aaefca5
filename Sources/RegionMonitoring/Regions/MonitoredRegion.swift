import Foundation
import Geodesy
import Geofencing

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
            return Region(
                identifier: id, shape: .circle(center: c.center, radius: c.radius),
                initialTrigger: initialTrigger)
        case .polygon(let p):
            return Region(
                identifier: id, shape: .polygon(Polygon(exterior: p.exterior, holes: p.holes)),
                initialTrigger: initialTrigger)
        }
    }
}
