import Foundation

/// Fast parsers for the numbers and times in track files, working on raw bytes.
enum FieldParsing {
    static let powersOfTen: [Double] = (0...22).map { pow(10, Double($0)) }

    /// A decimal number (`-12.345`, `7`, `1e3`); `nil` if the bytes are not one.
    /// Up to 19 significant digits are converted with one correctly rounded division;
    /// anything else (exponents, longer mantissas) falls back to `Double(String)`.
    static func double(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, n = b.count
        while i < n, b[i] == 32 || b[i] == 9 { i += 1 }
        while n > i, b[n - 1] == 32 || b[n - 1] == 9 { n -= 1 }
        guard i < n else { return nil }
        var negative = false
        if b[i] == 45 { negative = true; i += 1 } else if b[i] == 43 { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, fraction = 0
        var seenDot = false, any = false
        while i < n {
            let c = b[i]
            if c >= 48, c <= 57 {
                any = true
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(c - 48)
                    if mantissa > 0 { digits += 1 }
                    if seenDot { fraction += 1 }
                } else if !seenDot {
                    return slow(b)
                }
            } else if c == 46, !seenDot {
                seenDot = true
            } else {
                return slow(b)
            }
            i += 1
        }
        guard any, fraction <= 22, mantissa < (1 << 53) else { return any ? slow(b) : nil }
        let v = Double(mantissa) / powersOfTen[fraction]
        return negative ? -v : v
    }

    private static func slow(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let s = String(decoding: b, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard let v = Double(s), v.isFinite || s.lowercased().contains("nan") || s.lowercased().contains("inf") else {
            return Double(s)
        }
        return v
    }

    /// A time: ISO 8601 (`2026-06-11T14:05:00Z`, fractional seconds, `±HH:MM` offsets, or no
    /// zone = UTC) or Unix seconds (`1781186700.5`). Returns seconds since 1970.
    static func time(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, n = b.count
        while i < n, b[i] == 32 || b[i] == 9 || b[i] == 34 { i += 1 }
        while n > i, b[n - 1] == 32 || b[n - 1] == 9 || b[n - 1] == 34 { n -= 1 }
        guard n - i >= 1 else { return nil }
        if n - i >= 10, b[i + 4] == 45 { return iso8601(UnsafeBufferPointer(rebasing: b[i..<n])) }
        return double(UnsafeBufferPointer(rebasing: b[i..<n]))
    }

    /// `YYYY-MM-DD[T ]HH:MM:SS[.fff][Z|±HH:MM|±HHMM]` (date only = midnight UTC).
    static func iso8601(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        let n = b.count
        func num(_ at: Int, _ len: Int) -> Int? {
            guard at + len <= n else { return nil }
            var v = 0
            for k in at..<(at + len) {
                let c = b[k]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let y = num(0, 4), b[4] == 45, let mo = num(5, 2), n >= 10, b[7] == 45, let d = num(8, 2),
              (1...12).contains(mo), (1...31).contains(d) else { return nil }
        var secs = Double(daysFromCivil(y, mo, d) * 86_400)
        if n == 10 { return secs }
        guard n >= 19, b[10] == 84 || b[10] == 32 || b[10] == 116, let h = num(11, 2), b[13] == 58,
              let mi = num(14, 2), b[16] == 58, let s = num(17, 2),
              h < 24, mi < 60, s <= 60 else { return nil }
        secs += Double(h * 3600 + mi * 60 + s)
        var i = 19
        if i < n, b[i] == 46 || b[i] == 44 {
            i += 1
            var scale = 0.1, frac = 0.0
            let s0 = i
            while i < n, b[i] >= 48, b[i] <= 57 { frac += Double(b[i] - 48) * scale; scale /= 10; i += 1 }
            guard i > s0 else { return nil }
            secs += frac
        }
        if i == n { return secs }
        if b[i] == 90 || b[i] == 122 { return i + 1 == n ? secs : nil }
        guard b[i] == 43 || b[i] == 45, let oh = num(i + 1, 2) else { return nil }
        var j = i + 3
        if j < n, b[j] == 58 { j += 1 }
        guard let om = num(j, 2), j + 2 == n else { return nil }
        let offset = Double(oh * 3600 + om * 60)
        return b[i] == 43 ? secs - offset : secs + offset
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Splits `line` at `separator` bytes (no quoting; track CSVs have none), calling `body`
    /// with each field's index and bytes.
    @inline(__always)
    static func fields(_ line: UnsafeBufferPointer<UInt8>, separator: UInt8 = 44,
                       _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        var field = 0, s = 0
        for i in 0..<line.count where line[i] == separator {
            body(field, UnsafeBufferPointer(rebasing: line[s..<i]))
            field += 1
            s = i + 1
        }
        body(field, UnsafeBufferPointer(rebasing: line[s..<line.count]))
    }
}
