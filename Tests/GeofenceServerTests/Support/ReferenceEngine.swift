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
        try run(
            regions: regions, policy: policy, fixesPerDevice: Array(repeating: fixesPerDevice, count: devices), fix: fix
        ).events
    }

    /// Feeds device `d` its first `fixesPerDevice[d]` fixes (as ``events(regions:policy:devices:fixesPerDevice:fix:)``
    /// does) and returns the sorted event lines and, per device, `"dev-d [regions inside]"`.
    static func run(
        regions: [Region], policy: HysteresisPolicy, fixesPerDevice: [Int],
        fix: (Int, Int) -> (lat: Double, lon: Double, t: Double)
    ) throws -> (events: [String], inside: [String]) {
        var engine = Engine(policy: policy)
        try engine.add(contentsOf: regions)
        var out: [String] = []
        for (d, count) in fixesPerDevice.enumerated() {
            for i in 0..<count {
                let f = fix(d, i)
                let lf = LocationFix(
                    subject: "dev-\(d)", coordinate: Coordinate(uncheckedLatitude: f.lat, longitude: f.lon),
                    horizontalAccuracy: 8, timestamp: Date(timeIntervalSince1970: f.t))
                for e in try engine.process(lf) {
                    out.append("\(e.subject) \(e.regionID) \(e.kind.rawValue) \(FixJSON.formatRFC3339(e.time))")
                }
            }
        }
        let inside = fixesPerDevice.indices.map {
            "dev-\($0) \(engine.regionsContaining(subject: "dev-\($0)").sorted())"
        }
        return (out.sorted(), inside)
    }
}
