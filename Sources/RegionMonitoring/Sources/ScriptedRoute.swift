import Foundation
import Geodesy
import Geofencing

/// A route written as waypoints and speeds, turned into timed, noisy fixes.
///
/// ```swift
/// let route = ScriptedRoute(subject: "truck", start: t0, waypoints: [
///     .init(a, speed: 15),                 // drive from a at 15 m/s …
///     .init(b, speed: 15, pause: 60),      // … to b, wait a minute …
///     .init(c)])                           // … then on to c
/// let fixes = route.fixes(every: 2, errors: .gpsOnly, seed: 7)
/// ```
///
/// The subject moves along geodesics between waypoints at each waypoint's `speed` (m/s,
/// applying to the leg that starts there) and waits `pause` seconds at it. ``truePosition(at:)``
/// gives the noiseless position, so tests know exactly when a boundary was crossed.
public struct ScriptedRoute: Sendable {
    public struct Waypoint: Sendable, Hashable {
        public var coordinate: Coordinate
        /// Speed on the leg starting here, m/s (> 0).
        public var speed: Double
        /// Seconds to wait here before leaving.
        public var pause: Double
        public init(_ coordinate: Coordinate, speed: Double = 1.4, pause: Double = 0) {
            self.coordinate = coordinate
            self.speed = speed
            self.pause = pause
        }
    }

    public var subject: String
    public var start: Date
    public var waypoints: [Waypoint]

    public init(subject: String = "device", start: Date, waypoints: [Waypoint]) {
        self.subject = subject
        self.start = start
        self.waypoints = waypoints
    }

    /// One stretch of the route: a pause or a geodesic leg.
    private struct Piece {
        var t0: Double, t1: Double
        var from: Coordinate, azimuth: Double, speed: Double // speed 0: pause
    }

    private var pieces: [Piece] {
        var out: [Piece] = []
        var t = 0.0
        for (i, w) in waypoints.enumerated() {
            if w.pause > 0 {
                out.append(Piece(t0: t, t1: t + w.pause, from: w.coordinate, azimuth: 0, speed: 0))
                t += w.pause
            }
            guard i + 1 < waypoints.count else { break }
            let inv = Geodesic.wgs84.inverse(w.coordinate, waypoints[i + 1].coordinate)
            let v = max(w.speed, 0.01)
            let dt = inv.distance / v
            out.append(Piece(t0: t, t1: t + dt, from: w.coordinate, azimuth: inv.azimuth1, speed: v))
            t += dt
        }
        return out
    }

    /// Seconds from start to arrival at the last waypoint (after its pause).
    public var duration: TimeInterval { pieces.last?.t1 ?? 0 }

    /// The noiseless position, speed and course at `date` (clamped to the route).
    public func truePosition(at date: Date) -> (coordinate: Coordinate, speed: Double, course: Double?) {
        let t = date.timeIntervalSince(start)
        let ps = pieces
        guard let last = ps.last else {
            return (waypoints.first?.coordinate ?? Coordinate(uncheckedLatitude: 0, longitude: 0), 0, nil)
        }
        let p = ps.first { t < $0.t1 } ?? last
        if p.speed == 0 { return (p.from, 0, nil) }
        let d = min(max(0, t - p.t0), p.t1 - p.t0) * p.speed
        let course = p.azimuth < 0 ? p.azimuth + 360 : p.azimuth
        return (Geodesic.wgs84.direct(from: p.from, azimuth: p.azimuth, distance: d).coordinate, p.speed, course)
    }

    /// Fixes every `interval` seconds from start to the end of the route, with errors from
    /// `errors` (seeded: the same seed gives the same fixes).
    public func fixes(every interval: TimeInterval, errors: GPSErrorModel = .perfect, seed: UInt64 = 1) -> [LocationFix]
    {
        guard interval > 0, interval.isFinite, !waypoints.isEmpty else { return [] }
        var process = GPSErrorProcess(model: errors, seed: seed)
        var out: [LocationFix] = []
        let n = Int((duration / interval).rounded(.down))
        for k in 0...n {
            let date = start.addingTimeInterval(Double(k) * interval)
            let truth = truePosition(at: date)
            let e = process.next(dt: k == 0 ? 0 : interval)
            let c = LocalProjection(origin: truth.coordinate).unproject(east: e.east, north: e.north)
            out.append(
                LocationFix(
                    subject: subject, coordinate: c, horizontalAccuracy: e.accuracy,
                    timestamp: date, speed: truth.speed, course: truth.course))
        }
        return out
    }
}
