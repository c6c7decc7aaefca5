import Foundation
import Geodesy
import GeofenceServer
import Geofencing

/// What one uninterrupted engine gives for a load — the reference the server's stored and
/// delivered events are compared with.
enum ReferenceEngine {
    /// Feeds `fixesPerDevice` fixes of each of `devices` devices (subjects `dev-0`, `dev-1`, …,
    /// accuracy 8 m; `fix(d, i)` is device `d`'s `i`-th position and Unix time) to a fresh
    /// engine with `regions`, and returns its events as sorted `"subject region kind time"`
    /// lines (time as the server writes it).
    static func events(
        regions: [Region], policy: HysteresisPolicy, devices: Int, fixesPerDevice: Int,
        fix: (Int, Int) -> (lat: Double, lon: Double, t: Double)
    ) throws -> [String] {
        var engine = Engine(policy: policy)
        try engine.add(contentsOf: regions)
        var out: [String] = []
        for d in 0..<devices {
            for i in 0..<fixesPerDevice {
                let f = fix(d, i)
                let lf = LocationFix(
                    subject: "dev-\(d)", coordinate: Coordinate(uncheckedLatitude: f.lat, longitude: f.lon),
                    horizontalAccuracy: 8, timestamp: Date(timeIntervalSince1970: f.t))
                for e in try engine.process(lf) {
                    out.append("\(e.subject) \(e.regionID) \(e.kind.rawValue) \(FixJSON.formatRFC3339(e.time))")
                }
            }
        }
        return out.sorted()
    }
}
