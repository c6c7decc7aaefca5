import Foundation
import Geodesy
import Geofencing

/// A location as Core Location reports it — `CLLocation`'s fields, units and "invalid"
/// conventions — on its way to becoming a ``LocationFix``.
///
/// ```swift
/// let sample = LocationSample(location)                  // on Apple platforms, from a CLLocation
/// if let fix = sample.locationFix(subject: "me") { try engine.process(fix) }
/// ```
///
/// The mapping is platform-neutral so that it is tested everywhere; only the initialiser from
/// a `CLLocation` (`Apple/LocationSample+CLLocation.swift`) needs Core Location. Core Location
/// marks what it does not know with negative numbers, which the mapping turns into "unknown":
/// - a negative `horizontalAccuracy` means the coordinate itself is invalid: no fix at all;
/// - a negative `speed` or `speedAccuracy` means the speed is invalid: `speed` is `nil`;
/// - a negative `course` or `courseAccuracy` means the course is invalid: `course` is `nil`.
/// The fix's time is the location's `timestamp` (when it was determined), never the time it
/// was delivered: a location delivered late after a relaunch keeps its own time.
public struct LocationSample: Sendable, Hashable {
    /// Degrees, WGS84.
    public var latitude: Double
    /// Degrees, WGS84.
    public var longitude: Double
    /// Metres; negative when the coordinate is invalid.
    public var horizontalAccuracy: Double
    /// Metres per second; negative when unknown.
    public var speed: Double
    /// Metres per second; negative when `speed` is invalid.
    public var speedAccuracy: Double
    /// Degrees clockwise from true north; negative when unknown.
    public var course: Double
    /// Degrees; negative when `course` is invalid.
    public var courseAccuracy: Double
    /// When the location was determined.
    public var timestamp: Date

    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double, speed: Double = -1,
        speedAccuracy: Double = -1, course: Double = -1, courseAccuracy: Double = -1, timestamp: Date
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.timestamp = timestamp
    }

    /// The fix this location gives for `subject`, or `nil` when Core Location marks its
    /// coordinate invalid (or the values are out of range, as a stale or corrupt location can be).
    public func locationFix(subject: String) -> LocationFix? {
        // Core Location's own validity test (CLLocationCoordinate2DIsValid) bounds both axes.
        guard horizontalAccuracy >= 0, horizontalAccuracy.isFinite, (-180.0...180.0).contains(longitude),
            let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
        else { return nil }
        let fix = LocationFix(
            subject: subject, coordinate: coordinate, horizontalAccuracy: horizontalAccuracy,
            timestamp: timestamp, speed: Self.known(speed, accuracy: speedAccuracy),
            course: Self.known(course, accuracy: courseAccuracy).flatMap { $0 <= 360 ? $0 : nil })
        do { try fix.validate() } catch { return nil }
        return fix
    }

    /// `value` when Core Location marks both it and its accuracy valid (non-negative).
    private static func known(_ value: Double, accuracy: Double) -> Double? {
        value >= 0 && value.isFinite && accuracy >= 0 ? value : nil
    }
}
