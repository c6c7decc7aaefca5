import Foundation
import Geodesy
import Geofencing

/// Collects what a map needs while a simulation streams: each subject's track, decimated to
/// at most ``maximumPointsPerTrack`` points (the sampling stride doubles whenever the buffer
/// fills, so memory stays bounded for any track length), and the events (at most
/// ``maximumEvents``).
public struct MapRecorder: Sendable {
    /// One kept point of a track.
    public struct Point: Sendable, Hashable {
        public var latitude: Double
        public var longitude: Double
        /// Seconds since the reference date.
        public var time: Double
        /// Metres per second (the fix's own, or from the previous fix), if known.
        public var speed: Double?
        public var accuracy: Double?
    }

    /// One subject's kept points, in time order.
    public struct Track: Sendable {
        public var subject: String
        public var points: [Point] = []
        /// Fixes seen (kept or not).
        public var fixCount = 0
        var stride = 1
        var last: (lat: Double, lon: Double, time: Double)?
    }

    public var maximumPointsPerTrack: Int
    public var maximumEvents: Int
    public private(set) var tracks: [Track] = []
    public private(set) var events: [ReportedEvent] = []
    /// Events seen (kept or not).
    public private(set) var eventCount = 0
    private var trackIndex: [String: Int] = [:]

    public init(maximumPointsPerTrack: Int = 20_000, maximumEvents: Int = 2_000) {
        self.maximumPointsPerTrack = max(16, maximumPointsPerTrack)
        self.maximumEvents = maximumEvents
    }

    /// Records one accepted fix.
    public mutating func record(_ fix: LocationFix) {
        let i: Int
        if let k = trackIndex[fix.subject] {
            i = k
        } else {
            i = tracks.count
            trackIndex[fix.subject] = i
            tracks.append(Track(subject: fix.subject))
        }
        let lat = fix.coordinate.latitude
        let lon = fix.coordinate.longitude
        let t = fix.timestamp.timeIntervalSinceReferenceDate
        var speed = fix.speed
        if speed == nil, let last = tracks[i].last, t > last.time {
            speed = MapRecorder.approximateDistance(last.lat, last.lon, lat, lon) / (t - last.time)
        }
        tracks[i].last = (lat, lon, t)
        defer { tracks[i].fixCount += 1 }
        guard tracks[i].fixCount % tracks[i].stride == 0 else { return }
        tracks[i].points.append(
            Point(
                latitude: lat, longitude: lon, time: t, speed: speed,
                accuracy: fix.horizontalAccuracy))
        if tracks[i].points.count >= maximumPointsPerTrack {
            var w = 0
            for r in Swift.stride(from: 0, to: tracks[i].points.count, by: 2) {
                tracks[i].points[w] = tracks[i].points[r]
                w += 1
            }
            tracks[i].points.removeSubrange(w...)
            tracks[i].stride *= 2
        }
    }

    /// Records one event.
    public mutating func record(_ event: ReportedEvent) {
        eventCount += 1
        if events.count < maximumEvents { events.append(event) }
    }

    /// Equirectangular distance in metres; enough to colour a track by speed.
    static func approximateDistance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let r = 6_371_008.8
        let k = Double.pi / 180
        var dl = lon2 - lon1
        if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
        let x = dl * k * cos((lat1 + lat2) / 2 * k)
        let y = (lat2 - lat1) * k
        return r * (x * x + y * y).squareRoot()
    }
}
