#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimal number parsing straight from bytes, without creating a `String`.
///
/// Accepts `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`), nothing else: no
/// surrounding spaces, no `inf`/`nan`, no hexadecimal. Results are correctly rounded:
/// numbers with at most 15 significant digits and a small decimal exponent take Clinger's
/// exact fast path (one multiplication or division of two exactly representable doubles);
/// anything else goes to the C library's `strtod`.
enum NumberParsing {
    /// 10^e for 0 ≤ e ≤ 22 (all exact in a Double), without touching a global array.
    @inline(__always)
    static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// Parses the whole of `bytes` as a decimal number; nil if it is not one.
    ///
    /// Fast path (Clinger 1990): when the digits, read as an integer, are at most 2^53 and
    /// the decimal exponent is within ±22, both operands are exact doubles and one IEEE
    /// multiplication or division gives the correctly rounded result. Otherwise (more than
    /// 19 digits, larger mantissa or exponent) `strtod` decides.
    @inline(__always)
    static func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = bytes.count
        if n == 0 { return nil }
        var i = 0
        var negative = false
        let first = bytes[0]
        if first == UInt8(ascii: "-") {
            negative = true
            i = 1
        } else if first == UInt8(ascii: "+") {
            i = 1
        }
        var mantissa: UInt64 = 0
        let intStart = i
        while i < n {
            let d = bytes[i] &- 0x30
            if d > 9 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i += 1
        }
        var digits = i - intStart
        var exponent = 0
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < n {
                let d = bytes[i] &- 0x30
                if d > 9 { break }
                mantissa = mantissa &* 10 &+ UInt64(d)
                i += 1
            }
            exponent = fracStart - i
            digits += i - fracStart
        }
        if digits == 0 { return nil }
        if i < n {
            guard bytes[i] | 0x20 == UInt8(ascii: "e") else { return nil }
            i += 1
            var expNegative = false
            if i < n, bytes[i] == UInt8(ascii: "-") {
                expNegative = true
                i += 1
            } else if i < n, bytes[i] == UInt8(ascii: "+") {
                i += 1
            }
            var e = 0
            let expStart = i
            while i < n {
                let d = bytes[i] &- 0x30
                if d > 9 { return nil }
                if e < 100_000 { e = e * 10 + Int(d) }
                i += 1
            }
            if i == expStart { return nil }
            exponent += expNegative ? -e : e
        }
        if digits > 19 { return slowParse(bytes) } // the mantissa may have wrapped
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 { value /= exactPowerOfTen(-exponent) } else { value *= exactPowerOfTen(exponent) }
            return negative ? -value : value
        }
        return slowParse(bytes)
    }

    /// `strtod` on a NUL-terminated copy; the syntax was already checked.
    @inline(never)
    private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { tmp in
            for k in 0..<bytes.count { tmp[k] = CChar(bitPattern: bytes[k]) }
            tmp[bytes.count] = 0
            return strtod(tmp.baseAddress!, nil)
        }
    }

    /// Parses `bytes` as a non-negative decimal integer of at most 18 digits.
    static func parseUnsigned(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if bytes.isEmpty || bytes.count > 18 { return nil }
        var v = 0
        for b in bytes {
            let d = b &- 0x30
            if d > 9 { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }
}

extension Array where Element == UInt8 {
    /// Runs `body` with this array as an `UnsafeBufferPointer` (test and slow-path helper).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeBufferPointer(body)
    }
}
