import Foundation
import Geofencing

/// `--format table`: aligned columns for people, with local clock times and distances.
///
///     time      subject  event  region             past edge  delay
///     14:09:12  truck    enter  bridge-peabody-rr     23 m     9.4 s
///
/// `time` is the confirmation time on the local clock (`timeZone`), `past edge` how far the
/// confirming fix was past the boundary (inside for enter / dwell, outside for exit), and
/// `delay` the time from the estimated crossing to the confirmation. Columns have fixed
/// widths (long names are truncated with "…") so the table can stream.
public struct TableEventWriter: EventWriter, Sendable {
    /// Time zone of the clock times.
    public var timeZone: TimeZone
    private var wroteHeader = false

    static let widths = (time: 8, subject: 14, event: 5, region: 26, distance: 10, delay: 8)

    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    public mutating func header() -> String {
        let w = Self.widths
        return Self.pad("time", w.time) + "  " + Self.pad("subject", w.subject) + "  "
            + Self.pad("event", w.event) + "  " + Self.pad("region", w.region) + "  "
            + Self.padLeft("past edge", w.distance) + "  " + Self.padLeft("delay", w.delay) + "\n"
    }

    public mutating func text(for reported: ReportedEvent) -> String {
        row(for: reported)
    }

    func appendIndependentText(for reported: ReportedEvent, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: row(for: reported).utf8)
    }

    /// The row for `reported` (it depends on no other row: the columns have fixed widths).
    func row(for reported: ReportedEvent) -> String {
        let e = reported.event
        let w = Self.widths
        var distance = "–"
        if let d = reported.boundaryDistance {
            let past = e.kind == .exit ? d : -d
            distance = Self.distanceText(past)
        }
        let delay = e.time.timeIntervalSince(e.crossedAt)
        let delayText = e.kind == .dwell ? "–" : String(format: "%.1f s", delay)
        return Self.pad(TimestampFormat.clockTime(e.time, in: timeZone), w.time) + "  "
            + Self.pad(e.subject, w.subject) + "  " + Self.pad(e.kind.rawValue, w.event) + "  "
            + Self.pad(e.regionID, w.region) + "  " + Self.padLeft(distance, w.distance) + "  "
            + Self.padLeft(delayText, w.delay) + "\n"
    }

    public mutating func footer() -> String { "" }

    /// "23 m", "1.4 km".
    static func distanceText(_ metres: Double) -> String {
        abs(metres) < 1_000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1_000)
    }

    static func pad(_ s: String, _ width: Int) -> String {
        let n = s.count
        if n > width { return String(s.prefix(width - 1)) + "…" }
        return s + String(repeating: " ", count: width - n)
    }

    static func padLeft(_ s: String, _ width: Int) -> String {
        let n = s.count
        if n >= width { return s }
        return String(repeating: " ", count: width - n) + s
    }
}

extension TableEventWriter: IndependentEventText {}
