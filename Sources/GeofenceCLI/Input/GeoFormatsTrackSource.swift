import Foundation
import GeoFormats

/// Adapts a GeoFormats ``TrackReader`` (GPX, NMEA, CSV, GeoJSON) to ``TrackSource``.
///
/// Bad lines become ``TrackRecord/rejected(position:reason:)`` with the reader's position;
/// a fatal error (broken XML or JSON, a CSV header without a needed column, empty input)
/// is thrown, ending the track.
///
/// A class, so that an `any TrackSource` holding it holds a reference: a struct this size
/// would live in a box that every `next()` checks for uniqueness (2 % of a dense-city run's
/// CPU).
final class GeoFormatsTrackSource: TrackSource {
    // Not checked for exclusive access at run time (a check per record): only `next()`
    // changes them, which calls nothing that could re-enter this source, and a source is
    // read by one thread at a time.
    @exclusivity(unchecked) private var iterator: TrackReader.Iterator
    private let path: String
    @exclusivity(unchecked) private var index = 0

    init(reader: TrackReader, path: String) {
        iterator = reader.makeIterator()
        self.path = path
    }

    var bytesRead: Int { iterator.bytesRead }

    func next() throws -> TrackRecord? {
        guard let element = iterator.next() else { return nil }
        switch element {
        case .success(let p):
            index += 1
            return .position(
                TrackPosition(
                    index: index, latitude: p.coordinate.latitude,
                    longitude: p.coordinate.longitude, time: p.time,
                    accuracy: p.horizontalAccuracy, speed: p.speed, course: p.course))
        case .failure(let e):
            if e.isFatal {
                if case .unreadable(let why) = e.reason { throw InputError.cannotOpen(path: path, reason: why) }
                let what = e.format.map { "reading as \($0): " } ?? ""
                throw InputError.malformed(
                    path: path, position: e.position.description,
                    reason: "\(what)\(e.reason.description)")
            }
            return .rejected(position: e.position.description, reason: e.reason.description)
        }
    }
}
