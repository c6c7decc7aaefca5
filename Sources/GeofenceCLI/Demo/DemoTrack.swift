import Foundation
import Geodesy
import Geofencing

/// The bundled demo tracks and regions as values (for the scenarios that run on the simulated
/// device and for `simulate --power`).
enum DemoTrack {
    /// Every readable position of a bundled track as fixes of `subject`, in file order
    /// (unreadable records are skipped, as `simulate` does).
    static func fixes(_ resource: String, _ ext: String, subject: String) throws -> [LocationFix] {
        try fixes(atPath: DemoScenario.resourcePath(resource, ext), subject: subject)
    }

    /// Every readable position of the track file at `path` as fixes of `subject`, in file order.
    static func fixes(atPath path: String, subject: String) throws -> [LocationFix] {
        var source = try InputFiles.openTrack(path: path).source
        var out: [LocationFix] = []
        while let record = try source.next() {
            guard case .position(let p) = record else { continue }
            out.append(
                LocationFix(
                    subject: subject, coordinate: Coordinate(uncheckedLatitude: p.latitude, longitude: p.longitude),
                    horizontalAccuracy: p.accuracy, timestamp: p.time, speed: p.speed, course: p.course))
        }
        return out
    }

    /// The bundled regions of `resource` (GeoJSON).
    static func regions(_ resource: String) throws -> [Region] {
        try InputFiles.loadRegions(path: DemoScenario.resourcePath(resource, "geojson"))
    }
}
