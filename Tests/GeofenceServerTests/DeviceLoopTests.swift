import Foundation
import GeoFormats
import Geodesy
import GeofenceCLI
import GeofenceServer
import Geofencing
import RegionPlanner
import Testing

/// A phone with 20 slots (`geofence device`'s loop) driven east along latitude 30.5 across the
/// border of two provinces (PlanFixture) against a real server.
@Suite("A phone follows the server's plans across a province border")
struct DeviceLoopTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    /// 30 m/s east from lon 120.65 to 121.6, one fix a second (±5 m accuracy): through
    /// west-city-2, the border at 121.0, east-city-1, and east-city-2 at 121.5.
    static func track(device: String) -> [LocationFix] {
        let step = 30.0 / (111_320 * cos(30.5 * .pi / 180))
        let count = Int(((121.6 - 120.65) / step).rounded(.down))
        return (0..<count).map { i in
            LocationFix(
                subject: device, coordinate: Coordinate(uncheckedLatitude: 30.5, longitude: 120.65 + Double(i) * step),
                horizontalAccuracy: 5, timestamp: start.addingTimeInterval(Double(i)))
        }
    }

    /// The events of one engine holding the whole catalogue, as (kind, region, time).
    static func reference(_ fixes: [LocationFix], regions: String = PlanFixture.collection) throws -> [String] {
        let features = try GeoJSONRegionReader.read(string: regions)
        var engine = Engine(policy: .coreLocation)
        for f in features { try engine.add(Region(feature: f)) }
        var out: [String] = []
        for fix in fixes {
            for e in try engine.process(fix) {
                out.append("\(e.kind) \(e.regionID) \(e.fix.timestamp.timeIntervalSince(start))")
            }
        }
        return out
    }

    @Test(
        "plans change at the border, unchanged plans are 304s, the switch stops monitoring, events equal the whole catalogue's",
        arguments: StoreKind.allCases)
    func acrossTheBorder(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: PlanFixture.collection).status == 200)
            #expect(try await h.call(.PUT, "/v1/settings", key: key, body: #"{"planMaxAgeSeconds":60}"#).status == 200)
            let fixes = Self.track(device: "phone")
            // The switch goes off once the phone is past lon 121.3 (after east-city-1, before east-city-2).
            let switchIndex = try #require(fixes.firstIndex { $0.coordinate.longitude > 121.3 })
            let run = DeviceRun(server: "http://127.0.0.1:\(h.port)", key: key, device: "phone")
            let summary = try await run.run(
                fixes,
                beforeFix: { i, _ in
                    if i == switchIndex {
                        _ = try await h.call(
                            .PUT, "/v1/settings", key: key, body: #"{"monitoringEnabled":false,"planMaxAgeSeconds":60}"#
                        )
                    }
                })
            #expect(summary.errors.isEmpty, "\(summary.errors)")

            // Plans: the west cities before the border, the east ones after it.
            let plans = summary.plansApplied
            let west = plans.filter { $0.monitoring && $0.fix.coordinate.longitude < 121 }
            let east = plans.filter { $0.monitoring && $0.fix.coordinate.longitude > 121 }
            #expect(!west.isEmpty && !east.isEmpty)
            #expect(
                west.allSatisfy {
                    $0.registered.isSuperset(of: ["gov.west-city-1", "west-city-2"])
                        && !$0.registered.contains("east-city-1")
                })
            #expect(
                east.allSatisfy {
                    $0.registered.isSuperset(of: ["east-city-1", "east-city-2"])
                        && !$0.registered.contains("west-city-2")
                })
            // The first eastern plan came right after the province change was confirmed, not at a max-age.
            let firstEast = try #require(east.first).fix.coordinate.longitude
            #expect(firstEast < 121.01, "\(firstEast)")

            // Unchanged plans are 304s: a revalidation each minute, few plans.
            #expect(summary.plans.notModified >= 30, "\(summary.plans)")
            #expect(summary.plans.fetched <= 8, "\(summary.plans)")
            #expect(summary.plans.failures == 0)

            // The switch: the next revalidation (within the 60 s max-age) empties the slots.
            let off = try #require(plans.first { !$0.monitoring })
            let switchTime = fixes[switchIndex].timestamp
            #expect(off.fix.timestamp > switchTime && off.fix.timestamp <= switchTime.addingTimeInterval(61))
            #expect(off.registered.isEmpty && summary.registeredAtEnd.isEmpty)

            // Events: exactly the whole-catalogue engine's while monitoring was on, none after.
            let phone = summary.events.map {
                "\($0.kind) \($0.identifier) \($0.event.fix.timestamp.timeIntervalSince(Self.start))"
            }
            let cutoff = off.fix.timestamp
            let expected = try Self.reference(fixes.filter { $0.timestamp < cutoff })
            #expect(phone == expected)
            #expect(
                expected.contains { $0.hasPrefix("exit west ") }
                    && expected.contains { $0.hasPrefix("enter east-city-1 ") })
            // The whole catalogue would have reported east-city-2 after the switch; the phone did not.
            #expect(try Self.reference(fixes).contains { $0.hasPrefix("enter east-city-2 ") })
            #expect(!phone.contains { $0.contains("east-city-2") })
        }
    }

    @Test(
        "with 5 slots the re-plan circle keeps the guarantee: a drive past 60 shops gives the whole catalogue's events")
    func fewSlots() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            // Shops every 4 km on the road (lat 0) and 2.2 km either side of it, 1 km radius.
            var shops: [String] = []
            for i in 0..<20 {
                let lon = 0.018 + Double(i) * 0.036
                shops.append(circleFeature("on-\(i)", lat: 0, lon: lon, radius: 1_000))
                shops.append(
                    circleFeature("north-\(i)", lat: 0.02, lon: lon + 0.018, radius: 1_000, extra: #","source":"acme""#)
                )
                shops.append(
                    circleFeature(
                        "south-\(i)", lat: -0.02, lon: lon + 0.009, radius: 1_000, extra: #","notifyOnExit":false"#))
            }
            let collection = #"{"type":"FeatureCollection","features":[\#(shops.joined(separator: ","))]}"#
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: collection).status == 200)
            // 30 m/s east for 50 km, a fix a second.
            let step = 30.0 / 111_320
            let fixes = (0..<1_666).map { i in
                LocationFix(
                    subject: "van", coordinate: Coordinate(uncheckedLatitude: 0, longitude: Double(i) * step),
                    horizontalAccuracy: 5, timestamp: Self.start.addingTimeInterval(Double(i)))
            }
            var run = DeviceRun(server: "http://127.0.0.1:\(h.port)", key: key, device: "van")
            run.slots = 5
            run.reportBatch = 0
            let summary = try await run.run(fixes)
            #expect(summary.errors.isEmpty, "\(summary.errors)")
            #expect(summary.plansApplied.allSatisfy { $0.registered.count <= 4 })
            #expect(summary.plans.fetched >= 10, "\(summary.plans)") // re-planned along the way
            let phone = summary.events.map {
                "\($0.kind) \($0.identifier) \($0.event.fix.timestamp.timeIntervalSince(Self.start))"
            }
            let expected = try Self.reference(fixes, regions: collection)
            #expect(expected.count >= 20)
            #expect(phone == expected)
        }
    }

    @Test(
        "the README tour on the bundled provinces: the phone's events are the whole catalogue's under Core Location's rules, dwell aside",
        arguments: StoreKind.allCases)
    func readmeTour(_ store: StoreKind) async throws {
        var demo = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { demo.deleteLastPathComponent() }
        demo.appendPathComponent("Sources/GeofenceCLI/Resources/Demo")
        let regionsText = try String(contentsOf: demo.appendingPathComponent("provinces.geojson"), encoding: .utf8)
        let (fixes, rejected) = try DeviceRun.fixes(
            track: demo.appendingPathComponent("border-drive.csv").path, subject: "border-drive")
        #expect(rejected == 0 && fixes.count > 3_000)
        try await Harness.run(store) { h in
            let key = try await h.key("demo")
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: regionsText).status == 200)
            let summary = try await DeviceRun(server: "http://127.0.0.1:\(h.port)", key: key, device: "border-drive")
                .run(fixes)
            #expect(summary.errors.isEmpty && summary.plans.failures == 0)
            #expect(summary.fixesReported == fixes.count)
            let phone = summary.events.map {
                "\($0.kind) \($0.identifier) \($0.event.fix.timestamp.timeIntervalSince(Self.start))"
            }
            // Core Location's region monitoring has no dwell (the simulated phone neither); the
            // server's engine reports it.
            let expected = try Self.reference(fixes, regions: regionsText).filter { !$0.hasPrefix("dwell ") }
            #expect(phone == expected)
            #expect(phone.count >= 14)
            #expect(Set(summary.events.map(\.source)) == ["gov", "acme"])
            // The same track again under the same id: the server refuses the old fixes (409),
            // reporting stops with the reason, and the phone plays on with the same events.
            let again = try await DeviceRun(server: "http://127.0.0.1:\(h.port)", key: key, device: "border-drive").run(
                fixes)
            #expect(
                again.fixesReported == 0 && again.reportError?.contains("409") == true, "\(again.reportError ?? "")")
            #expect(again.events.map(\.event) == summary.events.map(\.event))
        }
    }

    @Test("with a fix a minute the phone tells the server its interval, and the smaller circles keep the guarantee")
    func sparseFixes() async throws {
        try await Harness.run(.sqlite) { h in
            let key = try await h.key("acme")
            // 3 km shops every 30 km on the road; a fix every 60 s at 30 m/s for 300 km.
            let shops = (0..<10).map { i in circleFeature("s\(i)", lat: 0, lon: 0.2 + Double(i) * 0.27, radius: 3_000) }
            let collection = #"{"type":"FeatureCollection","features":[\#(shops.joined(separator: ","))]}"#
            #expect(try await h.call(.POST, "/v1/regions/import", key: key, body: collection).status == 200)
            let step = 1_800.0 / 111_320
            let fixes = (0..<167).map { i in
                LocationFix(
                    subject: "truck", coordinate: Coordinate(uncheckedLatitude: 0, longitude: Double(i) * step),
                    horizontalAccuracy: 10, timestamp: Self.start.addingTimeInterval(Double(i) * 60))
            }
            var run = DeviceRun(server: "http://127.0.0.1:\(h.port)", key: key, device: "truck")
            run.slots = 3
            run.reportBatch = 0
            run.fixInterval = DeviceRun.longestInterval(fixes)
            #expect(run.fixInterval == 60)
            let summary = try await run.run(fixes)
            #expect(summary.errors.isEmpty, "\(summary.errors)")
            let phone = summary.events.map {
                "\($0.kind) \($0.identifier) \($0.event.fix.timestamp.timeIntervalSince(Self.start))"
            }
            let expected = try Self.reference(fixes, regions: collection)
            #expect(expected.count >= 18)
            #expect(phone == expected)
        }
    }
}
