import Geodesy

/// A problem found while reading a track: where it is and what is wrong.
///
/// `position` is a 1-based line (and column where known) for the text formats, or a
/// 0-based feature index (and point index within it) for GeoJSON. ``isFatal`` says whether
/// reading stopped there (the document is broken) or went on with the next line / point.
///
/// ```swift
/// // "line 7, column 12: latitude 95.0 is outside [-90, 90]"
/// print(error)
/// ```
public struct TrackParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Where in the input the problem is.
    public enum Position: Hashable, Sendable, CustomStringConvertible {
        /// 1-based line and, where known, 1-based byte column.
        case line(Int, column: Int? = nil)
        /// 0-based feature index and, where relevant, 0-based point index within it.
        case feature(Int, point: Int? = nil)
        /// The input as a whole (empty, unreadable).
        case input

        public var description: String {
            switch self {
            case .line(let l, let c?): "line \(l), column \(c)"
            case .line(let l, nil): "line \(l)"
            case .feature(let f, let p?): "feature \(f), point \(p)"
            case .feature(let f, nil): "feature \(f)"
            case .input: "input"
            }
        }
    }

    /// What is wrong.
    public enum Reason: Error, Equatable, Sendable, CustomStringConvertible {
        // Any format
        /// The input holds nothing but whitespace.
        case emptyInput
        /// The file could not be opened or read.
        case unreadable(String)
        /// A line longer than ``TrackReader/maximumLineLength`` bytes.
        case lineTooLong
        /// A required value (named) is missing or empty.
        case missingValue(String)
        /// A field (named) that should be a number is not one; `text` is what was found.
        case invalidNumber(field: String, text: String)
        /// A time that is neither ISO 8601 nor Unix seconds.
        case invalidTime(String)
        /// A coordinate out of range or not finite.
        case invalidCoordinate(GeodesyError)
        /// A value (named) outside its allowed range (e.g. negative accuracy, course 400).
        case valueOutOfRange(field: String, value: Double)

        // CSV
        /// The header lacks a required column (`time`, `latitude`, `longitude`).
        case missingColumn(String)
        /// The header names a column twice.
        case duplicateColumn(String)
        /// A row whose number of fields differs from the header's.
        case wrongFieldCount(expected: Int, found: Int)
        /// A quoted field that is not closed on its line.
        case unterminatedQuote

        // NMEA 0183
        /// A line that is not an NMEA sentence (does not start with `$` or `!`).
        case notASentence
        /// A sentence without the `*hh` checksum.
        case missingChecksum
        /// The checksum does not match the sentence.
        case checksumMismatch(expected: UInt8, found: UInt8)
        /// An RMC or GGA sentence with fewer fields than the standard's.
        case truncatedSentence(type: String, fields: Int)
        /// The receiver reports no position fix (RMC status `V`, GGA quality 0).
        case noFix
        /// A GGA fix before any RMC sentence gave the date.
        case noDate

        // GPX / XML
        /// The XML is not well formed; the text says how.
        case malformedXML(String)
        /// The root element is not `<gpx>`.
        case notGPX(root: String)
        /// A point element without a required attribute (`lat`, `lon`).
        case missingAttribute(String)

        // GeoJSON
        /// The JSON text is not valid.
        case invalidJSON(String)
        /// The JSON is valid but not a GeoJSON track (the text says why).
        case invalidGeoJSON(String)
        /// A LineString whose `times` array has a different length from its coordinates.
        case timeCountMismatch(coordinates: Int, times: Int)

        public var description: String {
            switch self {
            case .emptyInput: "the input is empty"
            case .unreadable(let why): "cannot read the input: \(why)"
            case .lineTooLong: "line is longer than \(TrackReader.maximumLineLength) bytes"
            case .missingValue(let name): "missing value for \(name)"
            case .invalidNumber(let field, let text): "\(field) '\(text)' is not a number"
            case .invalidTime(let text): "time '\(text)' is neither ISO 8601 nor Unix seconds"
            case .invalidCoordinate(let e): e.description
            case .valueOutOfRange(let field, let v): "\(field) \(v) is out of range"
            case .missingColumn(let c): "the header has no '\(c)' column"
            case .duplicateColumn(let c): "the header names column '\(c)' twice"
            case .wrongFieldCount(let e, let f): "expected \(e) fields as in the header, found \(f)"
            case .unterminatedQuote: "a quoted field is not closed"
            case .notASentence: "not an NMEA sentence (must start with '$' or '!')"
            case .missingChecksum: "the sentence has no '*hh' checksum"
            case .checksumMismatch(let e, let f):
                "checksum mismatch: computed \(hex(e)), sentence says \(hex(f))"
            case .truncatedSentence(let t, let n): "\(t) sentence has only \(n) fields"
            case .noFix: "the receiver reports no position fix"
            case .noDate: "no date known yet (GGA before any RMC sentence)"
            case .malformedXML(let why): "malformed XML: \(why)"
            case .notGPX(let root): "root element is <\(root)>, not <gpx>"
            case .missingAttribute(let a): "missing attribute '\(a)'"
            case .invalidJSON(let why): "invalid JSON: \(why)"
            case .invalidGeoJSON(let why): "not a GeoJSON track: \(why)"
            case .timeCountMismatch(let c, let t): "\(c) coordinates but \(t) times"
            }
        }

        private func hex(_ b: UInt8) -> String {
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }
    }

    /// The format being read.
    public var format: TrackFormat?
    /// Where.
    public var position: Position
    /// What.
    public var reason: Reason
    /// True when reading stopped at this error.
    public var isFatal: Bool

    public init(format: TrackFormat?, position: Position, reason: Reason, isFatal: Bool = false) {
        self.format = format
        self.position = position
        self.reason = reason
        self.isFatal = isFatal
    }

    public var description: String { "\(position): \(reason)" }
}
