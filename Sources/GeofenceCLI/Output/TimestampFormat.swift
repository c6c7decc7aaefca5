import Foundation
import GeoFormats

/// Fast, allocation-light ISO 8601 (UTC) and local-time formatting for event output.
///
/// `DateFormatter` costs microseconds per call and is not `Sendable`; the writers format
/// many events, so they use this small civil-calendar routine instead (Howard Hinnant's
/// days-from-civil inverse, public domain algorithm description).
///
/// ```swift
/// TimestampFormat.iso8601(Date(timeIntervalSince1970: 0))          // "1970-01-01T00:00:00Z"
/// TimestampFormat.iso8601(Date(timeIntervalSince1970: 1.25))       // "1970-01-01T00:00:01.250Z"
/// ```
public enum TimestampFormat {
    /// `YYYY-MM-DDTHH:MM:SSZ`, with `.mmm` milliseconds when the time is not a whole second.
    public static func iso8601(_ date: Date) -> String {
        iso8601(secondsSince1970: date.timeIntervalSince1970)
    }

    /// ``iso8601(_:)`` for a Unix time in seconds.
    public static func iso8601(secondsSince1970 t: Double) -> String {
        let (c, millis) = split(t)
        if (0...9_999).contains(c.year) {
            // The common case, written digit by digit into the string's own storage (a few
            // times faster than padding and interpolating; the writers call this per event).
            return String(unsafeUninitializedCapacity: maximumCompactBytes) { write(c, millis: millis, into: $0) }
        }
        return padded(c, millis: millis)
    }

    /// The longest text ``write(_:millis:into:)`` writes.
    static let maximumCompactBytes = 24

    /// Unix time `t` rounded to the millisecond: its whole seconds and milliseconds.
    @inline(__always)
    static func wholeSecondsAndMillis(_ t: Double) -> (Int, Int) {
        let ms = (t * 1000).rounded()
        let whole = (ms / 1000).rounded(.down)
        return (Int(whole), Int(ms - whole * 1000))
    }

    /// The civil time of Unix time `t` rounded to the millisecond, and its milliseconds.
    @inline(__always)
    static func split(_ t: Double) -> (Civil, Int) {
        let (whole, millis) = wholeSecondsAndMillis(t)
        return (civil(whole), millis)
    }

    /// Writes `YYYY-MM-DDTHH:MM:SS[.mmm]Z` (a year of four digits) into `b` (at least
    /// ``maximumCompactBytes`` long); returns the bytes written.
    @inline(__always)
    static func write(_ c: Civil, millis: Int, into b: UnsafeMutableBufferPointer<UInt8>) -> Int {
        func two(_ v: Int, _ i: Int) {
            b[i] = UInt8(48 + v / 10)
            b[i + 1] = UInt8(48 + v % 10)
        }
        two(c.year / 100, 0)
        two(c.year % 100, 2)
        b[4] = 45
        two(c.month, 5)
        b[7] = 45
        two(c.day, 8)
        b[10] = 84
        two(c.hour, 11)
        b[13] = 58
        two(c.minute, 14)
        b[16] = 58
        two(c.second, 17)
        if millis != 0 {
            b[19] = 46
            b[20] = UInt8(48 + millis / 100)
            two(millis % 100, 21)
            b[23] = 90
            return 24
        }
        b[19] = 90
        return 20
    }

    /// The general form (any year), by padding and interpolation.
    static func padded(_ c: Civil, millis: Int) -> String {
        var s =
            "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
        if millis != 0 { s += ".\(pad(millis, 3))" }
        s += "Z"
        return s
    }

    /// `HH:MM:SS` in `timeZone` (the table's local clock time).
    public static func clockTime(_ date: Date, in timeZone: TimeZone) -> String {
        let t = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let c = civil(Int(t.rounded(.down)))
        return "\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2))"
    }

    /// `YYYY-MM-DD HH:MM:SS ZZZ` in `timeZone`.
    public static func localDateTime(_ date: Date, in timeZone: TimeZone) -> String {
        let t = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let c = civil(Int(t.rounded(.down)))
        let abbr = timeZone.abbreviation(for: date) ?? timeZone.identifier
        return
            "\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2)) \(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)) \(abbr)"
    }

    struct Civil {
        var year, month, day, hour, minute, second: Int

        /// The time `seconds` (0..<86,400) into the day `date`.
        init(date: (year: Int, month: Int, day: Int), seconds: Int) {
            (year, month, day) = date
            (hour, minute, second) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        }
    }

    static func civil(_ unixSeconds: Int) -> Civil {
        let (days, seconds) = daysAndSeconds(unixSeconds)
        return Civil(date: Timestamp.civilFromDays(days), seconds: seconds)
    }

    /// Days since 1970-01-01 and seconds into that day (0..<86,400) of a Unix time.
    @inline(__always)
    static func daysAndSeconds(_ unixSeconds: Int) -> (days: Int, seconds: Int) {
        var days = unixSeconds / 86_400
        var rem = unixSeconds % 86_400
        if rem < 0 {
            rem += 86_400
            days -= 1
        }
        return (days, rem)
    }

    static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

/// Writes ISO 8601 times, working out a day's civil date once: the times a writer formats
/// mostly fall on the day of the one before, and the date is the costly part (about 40 % of the
/// formatting, docs/performance.md). Same text as ``TimestampFormat/iso8601(_:)``.
struct ISO8601Writer {
    /// The day (since 1970-01-01) whose date `date` holds; `Int.min`: none yet.
    private var day = Int.min
    private var date = (year: 0, month: 0, day: 0)

    /// The most bytes ``write(_:to:)`` writes: a year of 12 digits and a sign (Unix times up
    /// to 2^63 ms), then `-MM-DDTHH:MM:SS.mmmZ`.
    static let maximumBytes = 40

    /// Unix seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years written with
    /// four digits in place; others take the general form.
    private static let compactSeconds = -62_167_219_200...253_402_300_799

    mutating func write(_ time: Date, to line: inout LineCursor) {
        let (whole, millis) = TimestampFormat.wholeSecondsAndMillis(time.timeIntervalSince1970)
        guard Self.compactSeconds.contains(whole) else {
            line.put(text: TimestampFormat.padded(TimestampFormat.civil(whole), millis: millis))
            return
        }
        let (days, seconds) = TimestampFormat.daysAndSeconds(whole)
        if days != day {
            date = Timestamp.civilFromDays(days)
            day = days
        }
        let c = TimestampFormat.Civil(date: date, seconds: seconds)
        line.write { TimestampFormat.write(c, millis: millis, into: $0) }
    }
}
