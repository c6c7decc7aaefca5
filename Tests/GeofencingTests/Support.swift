import Foundation
import Geodesy

@testable import Geofencing

/// Shared scenario builders: fixes at offsets (metres) from a point, at seconds after t0.
enum Scene {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    static let shanghai = try! Coordinate(latitude: 31.239394, longitude: 121.499781)

    static func point(_ c: Coordinate, north: Double = 0, east: Double = 0) -> Coordinate {
        let d = (north * north + east * east).squareRoot()
        if d == 0 { return c }
        let az = atan2(east, north) * 180 / .pi
        return Geodesic.wgs84.direct(from: c, azimuth: az, distance: d).coordinate
    }

    static func fix(
        _ c: Coordinate, at seconds: Double, accuracy: Double? = 5,
        subject: String = "phone"
    ) -> LocationFix {
        LocationFix(
            subject: subject, coordinate: c, horizontalAccuracy: accuracy,
            timestamp: t0.addingTimeInterval(seconds))
    }

    /// A fix `north` metres from `c`'s centre line.
    static func fix(
        _ c: Coordinate, north: Double, at seconds: Double, accuracy: Double? = 5,
        subject: String = "phone"
    ) -> LocationFix {
        fix(point(c, north: north), at: seconds, accuracy: accuracy, subject: subject)
    }

    static func circle(
        _ id: String = "zone", _ c: Coordinate = shanghai, radius: Double = 100,
        dwell: TimeInterval? = nil, entry: Bool = true, exit: Bool = true,
        initial: InitialTrigger = []
    ) -> Region {
        .circle(
            identifier: id, center: c, radius: radius, notifyOnEntry: entry, notifyOnExit: exit,
            dwell: dwell, initialTrigger: initial)
    }

    static func seconds(_ d: Date) -> Double { d.timeIntervalSince(t0) }

    /// Runs fixes through the engine, collecting every event.
    static func run(_ engine: inout Engine, _ fixes: [LocationFix]) throws -> [TransitionEvent] {
        var out: [TransitionEvent] = []
        for f in fixes { out += try engine.process(f) }
        return out
    }
}
