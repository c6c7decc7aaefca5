import Foundation
import Geodesy

/// One fix of a recorded track, as read from a GPX, NMEA, CSV or GeoJSON file.
///
/// Values are validated by the readers: the coordinate is in range, `horizontalAccuracy`
/// and `speed` are finite and non-negative, `course` is in [0, 360). Order is the file's
/// order (the readers never sort; ordering is the engine's business).
///
/// ```swift
/// for case .success(let point) in try TrackReader(contentsOf: url) {
///     print(point.time, point.coordinate)
/// }
/// ```
public struct TrackPoint: Hashable, Sendable {
    /// When the fix was taken.
    public var time: Date
    /// Where.
    public var coordinate: Coordinate
    /// Height in metres (GPX `<ele>`, NMEA GGA altitude above mean sea level), if given.
    public var elevation: Double?
    /// Radius of uncertainty in metres, if given or derived from HDOP.
    public var horizontalAccuracy: Double?
    /// Ground speed in metres per second, if given.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, in [0, 360), if given.
    public var course: Double?

    public init(
        time: Date, coordinate: Coordinate, elevation: Double? = nil,
        horizontalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
    ) {
        self.time = time
        self.coordinate = coordinate
        self.elevation = elevation
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.course = course
    }
}
