import Foundation
import Geodesy

@testable import GeoFormats

/// All elements of a track read from `text`.
func elements(_ text: String, format: TrackFormat? = nil) -> [Result<TrackPoint, TrackParseError>] {
    Array(TrackReader(string: text, format: format))
}

func points(_ text: String, format: TrackFormat? = nil) -> [TrackPoint] {
    elements(text, format: format).compactMap { try? $0.get() }
}

func errors(_ text: String, format: TrackFormat? = nil) -> [TrackParseError] {
    elements(text, format: format).compactMap { if case .failure(let e) = $0 { e } else { nil } }
}

func fixture(_ name: String) throws -> URL {
    guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures") else {
        throw CocoaError(.fileNoSuchFile)
    }
    return url
}

func date(_ iso: String) -> Date { Timestamp.parse(iso)! }

/// An NMEA sentence with its checksum appended.
func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(sum, radix: 16, uppercase: true)
    return "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex)
}

/// A small deterministic generator (SplitMix64) for fuzzing.
