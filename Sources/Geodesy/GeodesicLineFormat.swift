// The text protocol of `geofence geodesic inverse|direct`: one problem per line in, one
// answer per line out (GeographicLib's GeodSolve does the same job). Kept here, in the
// library, so that the parsing and formatting rules are tested; the CLI only moves bytes.
//
// Input: whitespace-separated decimal numbers (spaces, tabs; a trailing CR is ignored).
// Output: fixed-point decimals, distances with 9 decimals (1 nm, like GeodSolve -p 9) and
// angles with 12 decimals (1e-12° ≈ 0.1 µm on the ground), separated by one space.

/// Which geodesic problem a line holds.
package enum GeodesicProblem: Sendable {
    /// `lat1 lon1 lat2 lon2` → `distance_m azimuth1_deg azimuth2_deg`.
    case inverse
    /// `lat1 lon1 azimuth1_deg distance_m` → `lat2 lon2 azimuth2_deg`.
    case direct
}

/// A line that could not be solved: its 1-based number and what is wrong with it.
package struct GeodesicLineError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Equatable, Sendable {
        /// The line does not hold exactly four numbers.
        case wrongFieldCount(found: Int)
        /// Field `field` (1-based) is not a decimal number.
        case notANumber(field: Int, text: String)
        /// The numbers are out of range (latitude beyond ±90, non-finite value).
        case invalid(GeodesyError)
    }
    package var line: Int
    package var kind: Kind

    package init(line: Int, kind: Kind) {
        self.line = line
        self.kind = kind
    }

    package var description: String {
        switch kind {
        case .wrongFieldCount(let n): "line \(line): expected 4 numbers, found \(n)"
        case .notANumber(let field, let text): "line \(line): field \(field) is not a number: \"\(text)\""
        case .invalid(let e): "line \(line): \(e)"
        }
    }
}

/// Solves one text line of the `geofence geodesic` protocol and appends the answer.
package struct GeodesicLineSolver: Sendable {
    package let problem: GeodesicProblem
    package let geodesic: Geodesic
    /// Decimals printed for distances and for angles.
    package static let distanceDecimals = 9
    package static let angleDecimals = 12

    package init(problem: GeodesicProblem, geodesic: Geodesic = .wgs84) {
        self.problem = problem
        self.geodesic = geodesic
    }

    /// Parses `line` (without its newline), solves it and appends the answer and "\n".
    package func solve(
        line: UnsafeBufferPointer<UInt8>, number: Int,
        into output: inout [UInt8]
    ) throws(GeodesicLineError) {
        var values = (0.0, 0.0, 0.0, 0.0)
        try DecimalScanner.scanFour(line, into: &values, line: number)
        let (v0, v1, v2, v3) = values
        switch problem {
        case .inverse:
            do {
                let p1 = try Coordinate(latitude: v0, longitude: v1)
                let p2 = try Coordinate(latitude: v2, longitude: v3)
                let r = geodesic.inverse(p1, p2)
                DecimalFormatter.append(r.distance, decimals: Self.distanceDecimals, to: &output)
                output.append(0x20)
                DecimalFormatter.append(r.azimuth1, decimals: Self.angleDecimals, to: &output)
                output.append(0x20)
                DecimalFormatter.append(r.azimuth2, decimals: Self.angleDecimals, to: &output)
            } catch {
                throw GeodesicLineError(line: number, kind: .invalid(error))
            }
        case .direct:
            do {
                let p1 = try Coordinate(latitude: v0, longitude: v1)
                let r = try geodesic.validatedDirect(from: p1, azimuth: v2, distance: v3)
                DecimalFormatter.append(r.coordinate.latitude, decimals: Self.angleDecimals, to: &output)
                output.append(0x20)
                DecimalFormatter.append(r.coordinate.longitude, decimals: Self.angleDecimals, to: &output)
                output.append(0x20)
                DecimalFormatter.append(r.azimuth2, decimals: Self.angleDecimals, to: &output)
            } catch {
                throw GeodesicLineError(line: number, kind: .invalid(error))
            }
        }
        output.append(0x0A)
    }

    /// Convenience for tests and small inputs: solves one line given as a string and returns
    /// the answer without its newline.
    package func solve(_ line: String, number: Int = 1) throws(GeodesicLineError) -> String {
        var out: [UInt8] = []
        var bytes = Array(line.utf8)
        let result: Result<Void, GeodesicLineError> = bytes.withUnsafeMutableBufferPointer { buf in
            do throws(GeodesicLineError) {
                try solve(line: UnsafeBufferPointer(buf), number: number, into: &out)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        out.removeLast()
        return String(decoding: out, as: UTF8.self)
    }
}

/// Decimal number scanning without Foundation: a fast exact path for up to 19 digits and
/// exponents within ±22 (Clinger's method: the result is correctly rounded because both
/// the digits and the power of ten are exact doubles), else the standard library's
/// correctly rounded parser.
package enum DecimalScanner {
    @usableFromInline static let powersOfTen: [Double] = (0...22).map { e in
        var p = 1.0
        for _ in 0..<e { p *= 10 }
        return p
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0B || c == 0x0C }

    /// Scans exactly four whitespace-separated numbers from `line`.
    package static func scanFour(
        _ line: UnsafeBufferPointer<UInt8>, into v: inout (Double, Double, Double, Double),
        line number: Int
    ) throws(GeodesicLineError) {
        var i = 0
        let n = line.count
        var count = 0
        while true {
            while i < n && isSpace(line[i]) { i += 1 }
            if i == n { break }
            let start = i
            while i < n && !isSpace(line[i]) { i += 1 }
            count += 1
            if count > 4 { continue }
            let token = UnsafeBufferPointer(rebasing: line[start..<i])
            guard let x = parse(token) else {
                throw GeodesicLineError(
                    line: number,
                    kind: .notANumber(
                        field: count, text: String(decoding: token.prefix(40), as: UTF8.self)))
            }
            switch count {
            case 1: v.0 = x
            case 2: v.1 = x
            case 3: v.2 = x
            default: v.3 = x
            }
        }
        if count != 4 { throw GeodesicLineError(line: number, kind: .wrongFieldCount(found: count)) }
    }

    /// Parses a decimal number `[+-]digits[.digits][(e|E)[+-]digits]`; nil if malformed.
    package static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = s.count
        var i = 0
        var negative = false
        if i < n && (s[i] == 0x2D || s[i] == 0x2B) {
            negative = s[i] == 0x2D
            i += 1
        }
        var mantissa: UInt64 = 0
        var exp10 = 0
        var digits = 0
        var truncated = false
        while i < n, s[i] &- 0x30 < 10 {
            if mantissa < 100_000_000_000_000_000 {
                mantissa = mantissa * 10 + UInt64(s[i] &- 0x30)
            } else {
                exp10 += 1
                if s[i] != 0x30 { truncated = true }
            }
            digits += 1
            i += 1
        }
        if i < n && s[i] == 0x2E {
            i += 1
            while i < n, s[i] &- 0x30 < 10 {
                if mantissa < 100_000_000_000_000_000 {
                    mantissa = mantissa * 10 + UInt64(s[i] &- 0x30)
                    exp10 -= 1
                } else if s[i] != 0x30 {
                    truncated = true
                }
                digits += 1
                i += 1
            }
        }
        guard digits > 0 else { return nil }
        if i < n && (s[i] == 0x65 || s[i] == 0x45) {
            i += 1
            var eneg = false
            if i < n && (s[i] == 0x2D || s[i] == 0x2B) {
                eneg = s[i] == 0x2D
                i += 1
            }
            var e = 0
            var edigits = 0
            while i < n, s[i] &- 0x30 < 10 {
                if e < 100_000 { e = e * 10 + Int(s[i] &- 0x30) }
                edigits += 1
                i += 1
            }
            guard edigits > 0 else { return nil }
            exp10 += eneg ? -e : e
        }
        guard i == n else { return nil }
        if !truncated && mantissa <= (1 << 53) && exp10 >= -22 && exp10 <= 22 {
            var x = Double(mantissa)
            if exp10 < 0 { x /= powersOfTen[-exp10] } else { x *= powersOfTen[exp10] }
            return negative ? -x : x
        }
        return Double(String(decoding: s, as: UTF8.self))
    }
}

/// Fixed-point decimal formatting without Foundation.
package enum DecimalFormatter {
    /// Appends `value` with exactly `decimals` digits after the point (0 ≤ decimals ≤ 15),
    /// correctly rounded from the double's exact value except for ties. Values of magnitude
    /// 1e15 or more, and non-finite values, are printed in Swift's shortest form instead.
    package static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite, abs(value) < 1e15 else {
            out.append(contentsOf: "\(value)".utf8)
            return
        }
        let scale = DecimalScanner.powersOfTen[decimals]
        let magnitude = abs(value)
        var whole = magnitude.rounded(.towardZero)
        let fraction = magnitude - whole // exact
        var digits = (fraction * scale).rounded()
        if digits >= scale {
            digits -= scale
            whole += 1
        }
        var w = UInt64(whole)
        var d = UInt64(digits)
        if value < 0 && (w != 0 || d != 0) { out.append(0x2D) }
        // Whole part.
        var tmp:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &tmp) { buf in
            var k = 16
            repeat {
                k -= 1
                buf[k] = UInt8(truncatingIfNeeded: w % 10) + 0x30
                w /= 10
            } while w > 0
            for j in k..<16 { out.append(buf[j]) }
            guard decimals > 0 else { return }
            out.append(0x2E)
            for j in stride(from: decimals - 1, through: 0, by: -1) {
                buf[j] = UInt8(truncatingIfNeeded: d % 10) + 0x30
                d /= 10
            }
            for j in 0..<decimals { out.append(buf[j]) }
        }
    }
}
