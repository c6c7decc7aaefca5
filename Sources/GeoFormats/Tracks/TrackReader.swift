import Foundation

/// Reads a track file of any supported format as a stream of points and errors.
///
/// The format is detected from the content (see ``TrackFormat``) unless given. GPX, NMEA
/// and CSV are read in chunks of 1 MiB without loading the file: memory stays bounded by
/// the longest line, so a 10-million-line CSV streams in a few megabytes. GeoJSON is a
/// single JSON document and is read whole.
///
/// Each element is a `Result`: a good point, or an error naming its line (or feature) and
/// what is wrong. A bad line does not stop the stream; an error with
/// ``TrackParseError/isFatal`` set (broken XML or JSON, CSV header without a needed column,
/// empty input) is the last element.
///
/// ```swift
/// let reader = try TrackReader(contentsOf: url)           // lenient: look at each element
/// for element in reader {
///     switch element {
///     case .success(let point): use(point)
///     case .failure(let error): print("skipped \(error)")   // "line 7: latitude 95.0 ..."
///     }
/// }
/// let points = try reader.readAll()                       // strict: throw the first error
/// ```
///
/// Reading is O(n) in the input size. A reader over a file can be iterated more than once
/// (each iteration reopens it); one over a file descriptor (`stdin`) only once.
public struct TrackReader: Sequence {
    /// The longest line accepted in the line-based formats (16 MiB).
    public static let maximumLineLength = ByteSource.maximumLineLength

    /// How to interpret values that need a convention.
    public struct Options: Sendable, Hashable {
        /// Metres of horizontal accuracy per unit of HDOP (GPX `<hdop>`, NMEA GGA), used
        /// when no accuracy is given directly. Default 5 m: accuracy ≈ HDOP × UERE, with
        /// a user equivalent range error of about 5 m (1σ) for single-frequency GPS.
        public var metresPerHDOP: Double

        public init(metresPerHDOP: Double = 5) {
            self.metresPerHDOP = metresPerHDOP
        }
    }

    private enum Input {
        case file(String)
        case bytes([UInt8])
        case source(SourceBox)
    }

    /// Holds a one-shot source (a descriptor such as stdin) for the first iteration.
    private final class SourceBox: @unchecked Sendable {
        var source: ByteSource?
        init(_ s: ByteSource) { source = s }
    }

    private let input: Input
    /// The format being read; nil when the input is empty (iteration then yields one
    /// ``TrackParseError/Reason/emptyInput`` error).
    public let format: TrackFormat?
    /// The options in force.
    public let options: Options

    /// Opens `url` (a file URL) and detects its format from the content unless `format` is given.
    /// - Throws: ``TrackParseError`` with ``TrackParseError/Reason/unreadable(_:)`` if the
    ///   file cannot be opened.
    public init(contentsOf url: URL, format: TrackFormat? = nil, options: Options = Options()) throws(TrackParseError) {
        try self.init(path: url.path, format: format, options: options)
    }

    /// Opens the file at `path` (see ``init(contentsOf:format:options:)``).
    public init(path: String, format: TrackFormat? = nil, options: Options = Options()) throws(TrackParseError) {
        let source = try TrackReader.open(path)
        input = .file(path)
        self.format = format ?? TrackFormat.detect(firstSignificantByte: source.peekSignificantByte())
        self.options = options
    }

    /// Reads from an open file descriptor (for example `0`, standard input). Single pass;
    /// the descriptor is not closed.
    public init(fileDescriptor: Int32, format: TrackFormat? = nil, options: Options = Options()) {
        let source = ByteSource(fileDescriptor: fileDescriptor, ownsDescriptor: false)
        self.format = format ?? TrackFormat.detect(firstSignificantByte: source.peekSignificantByte())
        input = .source(SourceBox(source))
        self.options = options
    }

    /// Reads from memory.
    public init(bytes: [UInt8], format: TrackFormat? = nil, options: Options = Options()) {
        input = .bytes(bytes)
        self.format = format ?? TrackFormat.detect(bytes)
        self.options = options
    }

    /// Reads from a string (convenience for tests and small inputs).
    public init(string: String, format: TrackFormat? = nil, options: Options = Options()) {
        self.init(bytes: Array(string.utf8), format: format, options: options)
    }

    private static func open(_ path: String) throws(TrackParseError) -> ByteSource {
        switch ByteSource.open(path: path) {
        case .success(let s): return s
        case .failure(let why):
            throw TrackParseError(format: nil, position: .input, reason: .unreadable(why.message), isFatal: true)
        }
    }

    public func makeIterator() -> Iterator {
        let source: ByteSource
        switch input {
        case .file(let path):
            do { source = try TrackReader.open(path) } catch { return Iterator(error: error) }
        case .bytes(let bytes):
            source = ByteSource(bytes: bytes)
        case .source(let box):
            guard let s = box.source else { return Iterator(backend: .done) }
            box.source = nil
            source = s
        }
        guard let format else {
            if let e = (source.peekSignificantByte(), source.readError).1 {
                return Iterator(
                    error: TrackParseError(format: nil, position: .input, reason: .unreadable(e), isFatal: true))
            }
            return Iterator(error: TrackParseError(format: nil, position: .input, reason: .emptyInput, isFatal: true))
        }
        source.skipByteOrderMark()
        switch format {
        case .csv: return Iterator(backend: .csv(CSVTrackParser(source: source)), source: source)
        case .nmea: return Iterator(backend: .nmea(NMEATrackParser(source: source, options: options)), source: source)
        case .gpx: return Iterator(backend: .gpx(GPXTrackParser(source: source, options: options)), source: source)
        case .geojson: return Iterator(backend: .geojson(GeoJSONTrackParser(source: source)), source: source)
        }
    }

    /// The stream of points and errors.
    public struct Iterator: IteratorProtocol {
        fileprivate enum Backend {
            case csv(CSVTrackParser)
            case nmea(NMEATrackParser)
            case gpx(GPXTrackParser)
            case geojson(GeoJSONTrackParser)
            case error(TrackParseError)
            case done
        }

        private var backend: Backend
        private let source: ByteSource?

        fileprivate init(backend: Backend, source: ByteSource? = nil) {
            self.backend = backend
            self.source = source
        }
        fileprivate init(error: TrackParseError) {
            backend = .error(error)
            source = nil
        }

        /// Bytes read from the input so far (ahead of the points returned by up to one
        /// 1 MiB chunk): compare with the file size for a progress bar.
        public var bytesRead: Int { source?.bytesRead ?? 0 }

        public mutating func next() -> Result<TrackPoint, TrackParseError>? {
            switch backend {
            case .csv(let p): return p.next()
            case .nmea(let p): return p.next()
            case .gpx(let p): return p.next()
            case .geojson(let p): return p.next()
            case .error(let e):
                backend = .done
                return .failure(e)
            case .done: return nil
            }
        }
    }

    /// Every point, throwing the first error (strict mode).
    public func readAll() throws(TrackParseError) -> [TrackPoint] {
        var out: [TrackPoint] = []
        for element in self {
            switch element {
            case .success(let p): out.append(p)
            case .failure(let e): throw e
            }
        }
        return out
    }

    /// Every good point; each error goes to `onError` and reading goes on (lenient mode).
    public func readAll(onError: (TrackParseError) -> Void) -> [TrackPoint] {
        var out: [TrackPoint] = []
        for element in self {
            switch element {
            case .success(let p): out.append(p)
            case .failure(let e): onError(e)
            }
        }
        return out
    }
}
