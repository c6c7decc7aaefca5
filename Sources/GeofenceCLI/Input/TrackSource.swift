import Foundation

/// One position read from a track file, before it becomes a `LocationFix`.
public struct TrackPosition: Sendable, Hashable {
    /// 1-based line number in the file, when the reader knows it (for error messages).
    public var line: Int?
    /// 1-based number of this position among the file's positions.
    public var index: Int
    public var latitude: Double
    public var longitude: Double
    public var time: Date
    /// Horizontal accuracy in metres, if the file gives one.
    public var accuracy: Double?
    /// Speed in m/s, if the file gives one.
    public var speed: Double?
    /// Course in degrees, if the file gives one.
    public var course: Double?

    public init(
        line: Int? = nil, index: Int, latitude: Double, longitude: Double, time: Date,
        accuracy: Double? = nil, speed: Double? = nil, course: Double? = nil
    ) {
        self.line = line
        self.index = index
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.accuracy = accuracy
        self.speed = speed
        self.course = course
    }
}

/// What a track source yields: a position, or a record it could not read (with its position).
public enum TrackRecord: Sendable, Hashable {
    case position(TrackPosition)
    /// A record that could not be read: where (`"line 7"`, `"feature 2, point 5"`) and why.
    case rejected(position: String, reason: String)
}

/// A stream of track records, read incrementally (never the whole file at once).
public protocol TrackSource {
    /// The next record, or `nil` at the end. Throws only for failures that end the stream
    /// (an unreadable file, a format error that makes the rest meaningless).
    mutating func next() throws -> TrackRecord?
    /// Bytes of the file consumed so far (for progress), or 0 when unknown.
    var bytesRead: Int { get }
}

extension TrackSource {
    public var bytesRead: Int { 0 }
}

/// A track source over records already in memory (tests, generated scenarios).
public struct ArrayTrackSource: TrackSource {
    private var records: [TrackRecord]
    private var index = 0

    public init(_ records: [TrackRecord]) { self.records = records }
    public init(positions: [TrackPosition]) { self.records = positions.map(TrackRecord.position) }

    public mutating func next() throws -> TrackRecord? {
        guard index < records.count else { return nil }
        defer { index += 1 }
        return records[index]
    }
}

/// A named track: whose fixes they are, where they came from, and the records.
public struct TrackInput {
    /// The subject of every fix in this track.
    public var subject: String
    /// File name (or other label) for messages.
    public var name: String
    /// The records.
    public var source: any TrackSource

    public init(subject: String, name: String, source: any TrackSource) {
        self.subject = subject
        self.name = name
        self.source = source
    }
}

extension TrackPosition {
    /// `"line 12"` when the line is known, else `"point 12"`.
    var positionText: String { line.map { "line \($0)" } ?? "point \(index)" }
}
