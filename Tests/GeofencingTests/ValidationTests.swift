import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Bad input: typed errors, state untouched")
struct ValidationTests {
    let c = Scene.shanghai

    /// An engine mid-walk into a 300 m circle, with an entry pending.
    func pendingEngine() throws -> Engine {
        var engine = Engine(policy: .precise)
        try engine.add(Scene.circle("zone", c, radius: 300))
        _ = try Scene.run(&engine, (0..<10).map { Scene.fix(c, north: 1_000, at: Double($0)) })
        _ = try Scene.run(&engine, (10..<13).map { Scene.fix(c, at: Double($0)) })
        #expect(engine.pendingRegions(of: "phone") == ["zone"])
        return engine
    }

    /// The events of the rest of the walk: must not differ after a rejected fix.
    func rest(_ engine: inout Engine) throws -> [String] {
        try Scene.run(&engine, (13..<60).map { Scene.fix(c, at: Double($0)) }).map {
            "\($0.kind)@\($0.time)/\($0.crossedAt)"
        }
    }

    @Test("a fix older than the subject's last is rejected and changes nothing")
    func outOfOrderFix() throws {
        var control = try pendingEngine()
        var engine = try pendingEngine()
        #expect(
            throws: GeofencingError.outOfOrderFix(
                subject: "phone", timestamp: Scene.t0.addingTimeInterval(5),
                lastTimestamp: Scene.t0.addingTimeInterval(12))
        ) {
            try engine.process(Scene.fix(c, north: 5_000, at: 5))
        }
        #expect(engine.lastFix(of: "phone")?.timestamp == Scene.t0.addingTimeInterval(12))
        #expect(try rest(&engine) == rest(&control))
    }

    @Test("a fix with the same timestamp as the last one is accepted")
    func equalTimestampAccepted() throws {
        var engine = try pendingEngine()
        _ = try engine.process(Scene.fix(c, at: 12))
    }

    static let badFixes: [(String, LocationFix)] = {
        let c = Scene.shanghai
        let t = Scene.t0.addingTimeInterval(20)
        return [
            (
                "horizontalAccuracy",
                LocationFix(subject: "phone", coordinate: c, horizontalAccuracy: .nan, timestamp: t)
            ),
            ("horizontalAccuracy", LocationFix(subject: "phone", coordinate: c, horizontalAccuracy: -1, timestamp: t)),
            (
                "horizontalAccuracy",
                LocationFix(subject: "phone", coordinate: c, horizontalAccuracy: .infinity, timestamp: t)
            ),
            (
                "timestamp",
                LocationFix(
                    subject: "phone", coordinate: c, horizontalAccuracy: 5,
                    timestamp: Date(timeIntervalSinceReferenceDate: .nan))
            ),
            (
                "timestamp",
                LocationFix(
                    subject: "phone", coordinate: c, horizontalAccuracy: 5,
                    timestamp: Date(timeIntervalSinceReferenceDate: .infinity))
            ),
            (
                "latitude",
                LocationFix(
                    subject: "phone", coordinate: Coordinate(uncheckedLatitude: .nan, longitude: 0), timestamp: t)
            ),
            (
                "latitude",
                LocationFix(subject: "phone", coordinate: Coordinate(uncheckedLatitude: 91, longitude: 0), timestamp: t)
            ),
            (
                "longitude",
                LocationFix(
                    subject: "phone", coordinate: Coordinate(uncheckedLatitude: 0, longitude: .infinity), timestamp: t)
            ),
            ("speed", LocationFix(subject: "phone", coordinate: c, timestamp: t, speed: -1)),
            ("speed", LocationFix(subject: "phone", coordinate: c, timestamp: t, speed: .nan)),
            ("course", LocationFix(subject: "phone", coordinate: c, timestamp: t, course: 400)),
            ("subject", LocationFix(subject: "", coordinate: c, timestamp: t)),
        ]
    }()

    @Test("invalid fixes are rejected naming the field, and change nothing", arguments: 0..<badFixes.count)
    func invalidFix(_ i: Int) throws {
        let (field, fix) = Self.badFixes[i]
        var control = try pendingEngine()
        var engine = try pendingEngine()
        do {
            _ = try engine.process(fix)
            Issue.record("accepted a fix with a bad \(field)")
        } catch {
            guard case .invalidFix(_, let f, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(f == field)
            #expect(error.description.contains(field))
        }
        #expect(engine.subjects == ["phone"])
        #expect(try rest(&engine) == rest(&control))
    }

    static let badRegions: [(String, Region)] = {
        let c = Scene.shanghai
        let p = { (n: Double, e: Double) in Scene.point(c, north: n, east: e) }
        return [
            ("radius", .circle(identifier: "r", center: c, radius: 0)),
            ("radius", .circle(identifier: "r", center: c, radius: -5)),
            ("radius", .circle(identifier: "r", center: c, radius: .nan)),
            ("radius", .circle(identifier: "r", center: c, radius: .infinity)),
            ("radius", .circle(identifier: "r", center: c, radius: 20_000_000)),
            (
                "center.latitude",
                .circle(identifier: "r", center: Coordinate(uncheckedLatitude: .nan, longitude: 0), radius: 10)
            ),
            ("identifier", .circle(identifier: "", center: c, radius: 10)),
            ("dwell", .circle(identifier: "r", center: c, radius: 10, dwell: -1)),
            ("dwell", .circle(identifier: "r", center: c, radius: 10, dwell: .nan)),
            ("exterior", Region(identifier: "r", shape: .polygon(Polygon(exterior: [p(0, 0), p(100, 0)])))),
            (
                "exterior",
                Region(identifier: "r", shape: .polygon(Polygon(exterior: [p(0, 0), p(100, 0), p(200, 0), p(0, 0)])))
            ),
            (
                "holes[0]",
                Region(
                    identifier: "r",
                    shape: .polygon(
                        Polygon(
                            exterior: [p(0, 0), p(100, 0), p(100, 100)],
                            holes: [[p(10, 10), p(10, 10), p(20, 20)]])))
            ),
            ("polygons", Region(identifier: "r", shape: .multiPolygon([]))),
            (
                "polygons[1].exterior",
                Region(
                    identifier: "r",
                    shape: .multiPolygon([
                        Polygon(exterior: [p(0, 0), p(100, 0), p(100, 100)]),
                        Polygon(exterior: [p(0, 0)]),
                    ]))
            ),
        ]
    }()

    @Test("the hot path's inlined check agrees with validate() on every edge value")
    func inlinedCheckAgreesWithValidate() {
        let numbers: [Double] = [
            .nan, -.infinity, .infinity, -400, -360.0001, -180, -90.0000001, -90, -1, -0.0, 0,
            1, 90, 90.0000001, 180, 360, 360.0001, 540, 1e300,
        ]
        let optional: [Double?] = [nil] + numbers.map { $0 }
        var checked = 0
        var invalid = 0
        func check(_ f: LocationFix) {
            var thrown = false
            do { try f.validate() } catch { thrown = true }
            #expect(f.passesValidation == !thrown, "\(f)")
            checked += 1
            if thrown { invalid += 1 }
        }
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        for subject in ["", "s"] {
            for lat in numbers {
                for lon in numbers {
                    check(
                        LocationFix(
                            subject: subject, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
                            timestamp: t0))
                }
            }
        }
        let here = Coordinate(uncheckedLatitude: 10, longitude: 20)
        for v in optional {
            check(LocationFix(subject: "s", coordinate: here, horizontalAccuracy: v, timestamp: t0))
            check(LocationFix(subject: "s", coordinate: here, timestamp: t0, speed: v))
            check(LocationFix(subject: "s", coordinate: here, timestamp: t0, course: v))
            if let v {
                check(LocationFix(subject: "s", coordinate: here, timestamp: Date(timeIntervalSinceReferenceDate: v)))
            }
        }
        #expect(checked > 800)
        #expect(invalid > 100 && invalid < checked)
    }

    @Test("invalid regions are rejected naming the field, and change nothing", arguments: 0..<badRegions.count)
    func invalidRegion(_ i: Int) throws {
        let (field, region) = Self.badRegions[i]
        var engine = try pendingEngine()
        do {
            try engine.add(region)
            Issue.record("accepted a region with a bad \(field)")
        } catch {
            guard case .invalidRegion(let id, let f, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(id == region.identifier)
            #expect(f == field)
        }
        #expect(engine.regionIdentifiers == ["zone"])
        #expect(engine.pendingRegions(of: "phone") == ["zone"])
    }

    @Test("a bulk add with a duplicate identifier adds nothing")
    func bulkDuplicate() throws {
        var engine = try pendingEngine()
        let regions = (0..<10).map { Scene.circle("r\($0 % 9)", Scene.point(c, north: Double($0) * 1_000), radius: 50) }
        #expect(throws: GeofencingError.duplicateIdentifier("r0")) { try engine.add(contentsOf: regions) }
        #expect(engine.regionIdentifiers == ["zone"])
    }

    @Test("a bulk add with one invalid region adds nothing")
    func bulkInvalid() throws {
        var engine = try pendingEngine()
        var regions = (0..<10).map { Scene.circle("r\($0)", Scene.point(c, north: Double($0) * 1_000), radius: 50) }
        regions[7] = Scene.circle("bad", c, radius: -1)
        #expect(throws: GeofencingError.self) { try engine.add(contentsOf: regions) }
        #expect(engine.regionCount == 1)
    }

    @Test("errors describe themselves with the field")
    func descriptions() {
        let e = GeofencingError.invalidRegion(
            identifier: "x", field: "radius", reason: "must be greater than 0 m (got 0)")
        #expect(e.description == "region \"x\": radius must be greater than 0 m (got 0)")
    }
}
