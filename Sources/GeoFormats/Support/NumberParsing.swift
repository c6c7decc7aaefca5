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
    /// Exact powers of ten representable in a Double (10^0 ... 10^22).
    @usableFromInline
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses the whole of `bytes` as a decimal number; nil if it is not one.
    static func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = bytes.count
        if n == 0 { return nil }
        var i = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") { negative = true; i = 1 } else if bytes[0] == UInt8(ascii: "+") { i = 1 }
        var mantissa: UInt64 = 0
        var significant = 0
        var exponent = 0
        var sawDigit = false
        // Integer part.
        while i < n {
            let d = bytes[i] &- 0x30
            if d > 9 { break }
            sawDigit = true
            if mantissa != 0 || d != 0 {
                if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d) } else { exponent += 1 }
                significant += 1
            }
            i += 1
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n {
                let d = bytes[i] &- 0x30
                if d > 9 { break }
                sawDigit = true
                if mantissa != 0 || d != 0 {
                    if significant < 19 { mantissa = mantissa &* 10 &+ UInt64(d); exponent -= 1 }
                    significant += 1
                } else {
                    exponent -= 1
                }
                i += 1
            }
        }
        if !sawDigit { return nil }
        if i < n, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < n, bytes[i] == UInt8(ascii: "-") { expNegative = true; i += 1 } else if i < n, bytes[i] == UInt8(ascii: "+") { i += 1 }
            var e = 0
            var expDigits = 0
            while i < n {
                let d = bytes[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                expDigits += 1
                i += 1
            }
            if expDigits == 0 { return nil }
            exponent += expNegative ? -e : e
        }
        if i != n { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if significant <= 15, exponent >= -22, exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 { value /= powersOfTen[-exponent] } else { value *= powersOfTen[exponent] }
            return negative ? -value : value
        }
        return slowParse(bytes)
    }

    /// `strtod` on a NUL-terminated copy; the syntax was already checked.
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
