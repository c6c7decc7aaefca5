import Testing

@testable import Geodesy

@Suite("geofence geodesic text protocol")
struct GeodesicLineFormatTests {
    @Test("inverse lines print distance with 9 decimals and azimuths with 12")
    func inverseLine() throws {
        let s = GeodesicLineSolver(problem: .inverse)
        let out = try s.solve("40.6 -73.8 49.01666667 2.55")
        let fields = out.split(separator: " ").map { Double(String($0))! }
        let r = Geodesic.wgs84.inverse(
            try Coordinate(latitude: 40.6, longitude: -73.8),
            try Coordinate(latitude: 49.01666667, longitude: 2.55))
        #expect(abs(fields[0] - r.distance) <= 5e-10)
        #expect(abs(fields[1] - r.azimuth1) <= 5e-13 && abs(fields[2] - r.azimuth2) <= 5e-13)
        #expect(out.split(separator: " ")[0].split(separator: ".")[1].count == 9)
        #expect(out.split(separator: " ")[1].split(separator: ".")[1].count == 12)
        #expect(try s.solve("\t0 0   0 0\r") == "0.000000000 180.000000000000 180.000000000000") // as GeodSolve
    }

    @Test("direct lines print latitude, longitude and azimuth; negative distances allowed")
    func directLine() throws {
        let s = GeodesicLineSolver(problem: .direct)
        #expect(try s.solve("0 0 90 -1e3").hasPrefix("0.000000000000 -0.00898315284"))
        let out = try s.solve("40.6 -73.8 51.1 5.8e6").split(separator: " ").map { Double(String($0))! }
        let r = Geodesic.wgs84.direct(
            from: try Coordinate(latitude: 40.6, longitude: -73.8), azimuth: 51.1, distance: 5.8e6)
        #expect(abs(out[0] - r.coordinate.latitude) <= 5e-13 && abs(out[1] - r.coordinate.longitude) <= 5e-13)
    }

    @Test("bad lines give an error naming the line and the problem")
    func badLines() {
        let s = GeodesicLineSolver(problem: .inverse)
        #expect(throws: GeodesicLineError(line: 7, kind: .wrongFieldCount(found: 3))) {
            try s.solve("1 2 3", number: 7)
        }
        #expect(throws: GeodesicLineError(line: 2, kind: .wrongFieldCount(found: 0))) { try s.solve("", number: 2) }
        #expect(throws: GeodesicLineError(line: 1, kind: .wrongFieldCount(found: 5))) { try s.solve("1 2 3 4 5") }
        #expect(throws: GeodesicLineError(line: 3, kind: .notANumber(field: 2, text: "abc"))) {
            try s.solve("1 abc 3 4", number: 3)
        }
        #expect(throws: GeodesicLineError(line: 4, kind: .invalid(.latitudeOutOfRange(91)))) {
            try s.solve("91 0 0 0", number: 4)
        }
        #expect(throws: GeodesicLineError.self) { try s.solve("nan 0 0 0") }
        #expect(throws: GeodesicLineError.self) { try s.solve("1e999 0 0 0") }
        #expect(throws: GeodesicLineError.self) { try GeodesicLineSolver(problem: .direct).solve("0 0 0 1e999") }
        let message = GeodesicLineError(line: 12, kind: .wrongFieldCount(found: 3)).description
        #expect(message == "line 12: expected 4 numbers, found 3")
    }

    @Test("decimal scanner: exact fast path and correctly rounded fallback agree with the standard library")
    func scanner() {
        var rng = SplitMix64(seed: 99)
        for i in 0..<20_000 {
            let x = rng.uniform(-200, 200) * (i % 3 == 0 ? 1e-7 : 1)
            for text in [
                "\(x)", "\(Float(x))", "\(Int(x))", "1.5e3", "-0.000000000000000000000123", "123456789012345678901234",
            ] {
                let parsed = Array(text.utf8).withUnsafeBufferPointer { DecimalScanner.parse($0) }
                #expect(parsed == Double(text), "\(text)")
            }
        }
        for bad in ["", "-", ".", "1e", "1.2.3", "0x10", "1,5", "inf", "nan", "--1", "1e+"] {
            #expect(Array(bad.utf8).withUnsafeBufferPointer { DecimalScanner.parse($0) } == nil, "\(bad)")
        }
    }

    @Test("fixed-point formatter rounds and carries correctly")
    func formatter() {
        func f(_ v: Double, _ k: Int) -> String {
            var out: [UInt8] = []
            DecimalFormatter.append(v, decimals: k, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(f(0.9999999999996, 12) == "1.000000000000")
        #expect(f(-12.5, 3) == "-12.500")
        #expect(f(-0.0000000000001, 9) == "0.000000000")
        #expect(f(20003931.458625447, 9) == "20003931.458625447")
        #expect(f(179.999999999999, 12) == "179.999999999999")
        #expect(f(3, 0) == "3")
    }
}
