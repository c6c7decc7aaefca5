import Foundation

/// Timestamps as the track formats write them, parsed and formatted by hand (no
/// `DateFormatter` in the hot path).
///
/// Parsing accepts
/// - ISO 8601 / RFC 3339 date-times: `YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm|±hhmm|±hh]`,
///   with `T`, `t` or a space between date and time, and `hh:mm` (seconds omitted) too;
///   without an offset the time is taken as UTC; a leap second (`:60`) is accepted as the
///   following second;
/// - Unix time: a decimal number of seconds since 1970-01-01T00:00:00Z (`1433267553.25`).
///
/// ```swift
/// Timestamp.parse("2015-06-02T17:52:33.5+02:00")   // Date
/// Timestamp.format(date)                             // "2015-06-02T15:52:33.5Z"
/// ```
public enum Timestamp {
    /// Parses an ISO 8601 date-time or Unix seconds; nil if `text` is neither.
    public static func parse(_ text: String) -> Date? {
        var copy = text
        return copy.withUTF8 { parseSeconds($0) }.map { Date(timeIntervalSince1970: $0) }
    }

    /// Seconds since 1970 for an ISO 8601 date-time or Unix seconds in `bytes`.
    static func parseSeconds(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if bytes.count >= 10, bytes[4] == UInt8(ascii: "-") { return parseISO8601(bytes) }
        return NumberParsing.parseDouble(bytes)
    }

    @inline(__always)
    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
        if at + count > b.count { return nil }
        var v = 0
        for k in at..<(at + count) {
            let d = b[k] &- 0x30
            if d > 9 { return nil }
            v = v * 10 + Int(d)
        }
        return v
    }

    /// ISO 8601 extended format, as documented on the type.
    static func parseISO8601(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let year = digits(b, 0, 4), b[4] == UInt8(ascii: "-"),
            let month = digits(b, 5, 2), b.count > 7, b[7] == UInt8(ascii: "-"),
            let day = digits(b, 8, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { return nil }
        let seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        var i = 10
        if i == b.count { return seconds } // a bare date is midnight UTC
        let sep = b[i]
        guard sep == UInt8(ascii: "T") || sep == UInt8(ascii: "t") || sep == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = digits(b, i, 2), i + 2 < b.count, b[i + 2] == UInt8(ascii: ":"),
            let minute = digits(b, i + 3, 2)
        else { return nil }
        i += 5
        var second = 0
        if i < b.count, b[i] == UInt8(ascii: ":") {
            guard let s = digits(b, i + 1, 2) else { return nil }
            second = s
            i += 3
        }
        guard hour <= 24, minute <= 59, second <= 60 else { return nil }
        if hour == 24, minute != 0 || second != 0 { return nil }
        var fractionValue = 0 // the first 9 fraction digits as an integer
        var fractionDigits = 0
        if i < b.count, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            let fracStart = i
            while i < b.count {
                let d = b[i] &- 0x30
                if d > 9 { break }
                if fractionDigits < 9 {
                    fractionValue = fractionValue * 10 + Int(d)
                    fractionDigits += 1
                }
                i += 1
            }
            if i == fracStart { return nil }
        }
        var offset = 0
        if i < b.count {
            let z = b[i]
            if z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") {
                i += 1
            } else if z == UInt8(ascii: "+") || z == UInt8(ascii: "-") {
                guard let oh = digits(b, i + 1, 2) else { return nil }
                i += 3
                var om = 0
                if i < b.count {
                    if b[i] == UInt8(ascii: ":") { i += 1 }
                    guard let m = digits(b, i, 2) else { return nil }
                    om = m
                    i += 2
                }
                guard oh <= 23, om <= 59 else { return nil }
                offset = (oh * 3600 + om * 60) * (z == UInt8(ascii: "-") ? -1 : 1)
            } else {
                return nil
            }
        }
        if i != b.count { return nil }
        let whole = Int(seconds) + hour * 3600 + minute * 60 + second - offset
        if fractionDigits == 0 { return Double(whole) }
        // One correctly rounded division when the scaled value is exact in a Double.
        let scale = NumberParsing.exactPowerOfTen(fractionDigits)
        let scaled = Double(whole) * scale + Double(fractionValue)
        if abs(scaled) < 9_007_199_254_740_992 { return scaled / scale }
        return Double(whole) + Double(fractionValue) / scale
    }

    @inline(__always)
    static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    @inline(__always)
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the era-based method described
    /// in H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
    @inline(__always)
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (inverse of ``daysFromCivil``).
    package static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Formats `date` as ISO 8601 in UTC: `2015-06-02T17:52:33Z`, with up to
    /// `fractionDigits` (0...9) digits of fractional seconds when the time has any
    /// (trailing zeros dropped).
    public static func format(_ date: Date, fractionDigits: Int = 3) -> String {
        let t = date.timeIntervalSince1970
        guard t.isFinite else { return "invalid-date" }
        let digits = max(0, min(9, fractionDigits))
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaledTime = (t * Double(scale)).rounded()
        guard abs(scaledTime) < 9e18 else { return "invalid-date" }
        let units = Int64(scaledTime) // whole 1/scale seconds
        let scale64 = Int64(scale)
        var secs = units / scale64
        var frac = Int(units % scale64)
        if frac < 0 {
            frac += scale
            secs -= 1
        }
        var days = Int(secs / 86_400)
        var sod = Int(secs % 86_400)
        if sod < 0 {
            sod += 86_400
            days -= 1
        }
        let (y, mo, d) = civilFromDays(days)
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return s.count >= w ? s : String(repeating: "0", count: w - s.count) + s
        }
        var out =
            "\(pad(y, 4))-\(pad(mo, 2))-\(pad(d, 2))T\(pad(sod / 3600, 2)):\(pad(sod / 60 % 60, 2)):\(pad(sod % 60, 2))"
        if frac > 0 {
            var w = digits
            while frac % 10 == 0 {
                frac /= 10
                w -= 1
            }
            out += "." + pad(frac, w)
        }
        return out + "Z"
    }
}
