import Geodesy
import RegionMonitoring

/// A circular region as Core Location's `CLCircularRegion` holds it: the only shape its
/// region monitoring takes.
public struct SystemRegion: Sendable, Hashable {
    public var identifier: String
    public var center: Coordinate
    /// Metres.
    public var radius: Double
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool

    public init(
        identifier: String, center: Coordinate, radius: Double, notifyOnEntry: Bool = true, notifyOnExit: Bool = true
    ) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// The system region for `circle`.
    public init(_ circle: CircularRegion) {
        self.init(
            identifier: circle.identifier, center: circle.center, radius: circle.radius,
            notifyOnEntry: circle.notifyOnEntry, notifyOnExit: circle.notifyOnExit)
    }

    /// The package's region for this one.
    public var monitoredRegion: MonitoredRegion {
        .circle(
            CircularRegion(
                center: center, radius: radius, identifier: identifier,
                notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit))
    }
}
