import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Polygons: holes, multipolygons, antimeridian, signed distance")
struct PolygonTests {
    let c = Scene.shanghai

    /// A square of `half` metres half-side around `center`, as a closed ring.
    func square(_ center: Coordinate, half: Double) -> [Coordinate] {
        let ring = [(-half, -half), (-half, half), (half, half), (half, -half)].map {
            Scene.point(center, north: $0.0, east: $0.1)
        }
        return ring + [ring[0]]
    }

    @Test("signed distance of a square with a hole")
    func signedDistanceWithHole() throws {
        let region = Region(
            identifier: "donut",
            shape: .polygon(
                Polygon(
                    exterior: square(c, half: 500),
                    holes: [square(c, half: 100)])))
        try region.validate()
        #expect(abs(region.signedDistance(to: Scene.point(c, north: 300)) + 200) < 1) // in the ring, 200 m from both
        #expect(abs(region.signedDistance(to: Scene.point(c, north: 50)) - 50) < 1) // in the hole
        #expect(abs(region.signedDistance(to: Scene.point(c, north: 700)) - 200) < 1) // outside
        #expect(abs(region.signedDistance(to: Scene.point(c, north: 450, east: -200)) + 50) < 1)
        #expect(region.contains(Scene.point(c, east: 300)))
        #expect(!region.contains(c))
    }

    @Test("walking through a polygon with a hole: enter, exit into the hole, enter, exit")
    func walkThroughHole() throws {
        var engine = Engine(policy: .precise)
        try engine.add(
            Region(
                identifier: "donut",
                shape: .polygon(
                    Polygon(
                        exterior: square(c, half: 600),
                        holes: [square(c, half: 200)]))))
        let fixes = (0...900).map { Scene.fix(c, north: -900 + Double($0) * 2, at: Double($0)) }
        let events = try Scene.run(&engine, fixes)
        #expect(events.map(\.kind) == [.enter, .exit, .enter, .exit])
        // Boundaries at -600, -200, 200, 600 m → t = 150, 350, 550, 750 s.
        for (e, t) in zip(events, [150.0, 350, 550, 750]) { #expect(abs(Scene.seconds(e.crossedAt) - t) < 2) }
    }

    @Test("a polygon across the antimeridian contains points on both sides")
    func antimeridianPolygon() throws {
        let ring = try [(-17.0, 179.5), (-17.0, -179.5), (-16.0, -179.5), (-16.0, 179.5)].map {
            try Coordinate(latitude: $0.0, longitude: $0.1)
        }
        let fiji = Region(identifier: "fiji", shape: .polygon(Polygon(exterior: ring)))
        try fiji.validate()
        for lon in [179.6, 180, -179.9, -179.6] {
            #expect(fiji.contains(try Coordinate(latitude: -16.5, longitude: lon)))
        }
        #expect(!fiji.contains(try Coordinate(latitude: -16.5, longitude: 179.4)))
        #expect(!fiji.contains(try Coordinate(latitude: -16.5, longitude: 0)))
        // 0.1° of longitude east of the eastern edge at 16.5° S ≈ 10.7 km.
        let d = fiji.signedDistance(to: try Coordinate(latitude: -16.5, longitude: -179.4))
        #expect(abs(d - 10_670) < 60)

        var engine = Engine(policy: .precise)
        try engine.add(fiji)
        var events: [TransitionEvent] = []
        for (i, lon) in stride(from: 179.0, through: 181.0, by: 0.002).enumerated() {
            let p = Coordinate(uncheckedLatitude: -16.5, longitude: lon)
            events += try engine.process(
                LocationFix(
                    subject: "ship", coordinate: p, horizontalAccuracy: 10,
                    timestamp: Scene.t0.addingTimeInterval(Double(i) * 10)))
        }
        #expect(events.map(\.kind) == [.enter, .exit])
        #expect(engine.regions(containing: Coordinate(uncheckedLatitude: -16.5, longitude: 180)) == ["fiji"])
        #expect(engine.regions(containing: Coordinate(uncheckedLatitude: -16.5, longitude: -179.9)) == ["fiji"])
    }

    @Test("an antimeridian-split multipolygon behaves as one area")
    func splitMultiPolygon() throws {
        let west = try [(-17.0, 179.5), (-17.0, 180), (-16.0, 180), (-16.0, 179.5)].map {
            try Coordinate(latitude: $0.0, longitude: $0.1)
        }
        let east = try [(-17.0, -180), (-17.0, -179.5), (-16.0, -179.5), (-16.0, -180)].map {
            try Coordinate(latitude: $0.0, longitude: $0.1)
        }
        let region = Region(
            identifier: "split", shape: .multiPolygon([Polygon(exterior: west), Polygon(exterior: east)]))
        try region.validate()
        var engine = Engine(policy: .precise)
        try engine.add(region)
        for lon in [179.7, -179.7] {
            let p = Coordinate(uncheckedLatitude: -16.5, longitude: lon)
            #expect(region.contains(p))
            #expect(engine.regions(containing: p) == ["split"])
        }
        #expect(!region.contains(Coordinate(uncheckedLatitude: -16.5, longitude: 179.4)))
        #expect(engine.regions(containing: Coordinate(uncheckedLatitude: -15.5, longitude: 180)).isEmpty)
    }

    @Test("a multipolygon: inside either part counts")
    func multiPolygonParts() throws {
        let region = Region(
            identifier: "two",
            shape: .multiPolygon([
                Polygon(exterior: square(c, half: 100)),
                Polygon(exterior: square(Scene.point(c, east: 1_000), half: 100)),
            ]))
        #expect(region.contains(c))
        #expect(region.contains(Scene.point(c, east: 1_050)))
        #expect(abs(region.signedDistance(to: Scene.point(c, east: 500)) - 400) < 1)
    }

    @Test("regions round-trip through the engine as added")
    func roundTrip() throws {
        var engine = Engine()
        let r = Region(
            identifier: "p", shape: .polygon(Polygon(exterior: square(c, half: 100))), notifyOnExit: false,
            dwell: 30, initialTrigger: [.enter], metadata: ["owner": "acme"])
        try engine.add(r)
        #expect(engine.region(identifier: "p") == r)
        #expect(engine.regions == [r])
    }
}
