import Foundation
import GeoFormats
import Geofencing

extension LocationFix {
    /// The fix for a track point read by `GeoFormats` (GPX, NMEA, CSV, GeoJSON).
    public init(_ point: TrackPoint, subject: String) {
        self.init(
            subject: subject, coordinate: point.coordinate, horizontalAccuracy: point.horizontalAccuracy,
            timestamp: point.time, speed: point.speed, course: point.course)
    }
}

extension TrackReplay {
    /// Replays track points from any `GeoFormats` reader.
    ///
    /// ```swift
    /// let points = try TrackReader(path: "drive.gpx").readAll()
    /// let replay = TrackReplay(points: points, clock: ContinuousClock(), speed: .scaled(10))
    /// ```
    public init(
        points: [TrackPoint], subject: String = "device", clock: C, speed: Speed = .realTime,
        tickInterval: TimeInterval? = 1, trailingDuration: TimeInterval = 0
    ) {
        self.init(
            points.map { LocationFix($0, subject: subject) }, clock: clock, speed: speed,
            tickInterval: tickInterval, trailingDuration: trailingDuration)
    }
}
