import Foundation
import Geodesy
import Testing

@testable import GeoFormats

/// Light fuzzing: random bytes, truncations and single-byte mutations of valid files
/// must give errors, never a crash, and always end.
@Suite("Fuzzing")
struct FuzzTests {
    static let samples: [String] = {
        ["shanghai.csv", "shanghai.nmea", "shanghai.gpx", "track.geojson", "regions.geojson"].map {
            (try? String(contentsOf: try fixture($0), encoding: .utf8)) ?? ""
        }
    }()

    private func exercise(_ bytes: [UInt8]) {
        for format in [nil] + TrackFormat.allCases.map(Optional.some) {
            var n = 0
            for _ in TrackReader(bytes: bytes, format: format) {
                n += 1
                if n > 100_000 {
                    Issue.record("reader did not end")
                    return
                }
            }
        }
        _ = try? GeoJSONRegionReader.read(bytes: bytes)
    }

    @Test func randomBytesNeverCrash() {
        var rng = SplitMix64(seed: 1)
        let alphabet = Array("<>/=\"'$!*,{}[]:.-+0123456789eE \n\r\tabcTZ&;#gpxtrkptlaonimeGPRMCGA".utf8)
        for round in 0..<400 {
            let length = Int.random(in: 0...300, using: &rng)
            let bytes: [UInt8] = (0..<length).map { _ in
                round % 2 == 0 ? UInt8.random(in: 0...255, using: &rng) : alphabet.randomElement(using: &rng)!
            }
            exercise(bytes)
        }
    }

    @Test func truncationsAndMutationsOfValidFilesNeverCrash() {
        var rng = SplitMix64(seed: 2)
        for sample in FuzzTests.samples {
            let bytes = Array(sample.utf8)
            #expect(!bytes.isEmpty)
            for cut in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 60)) {
                exercise(Array(bytes.prefix(cut)))
            }
            for _ in 0..<60 {
                var m = bytes
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    m[Int.random(in: 0..<m.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                exercise(m)
            }
        }
    }

    @Test func deepNestingIsAnErrorNotAStackOverflow() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: GeoJSONError.invalidJSON(line: 1, column: 129, reason: "nesting deeper than 128")) {
            try GeoJSONRegionReader.read(string: deep)
        }
    }
}
