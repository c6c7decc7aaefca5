import Foundation
import Testing

@testable import GeofenceCLI

/// End-to-end runs of the parsed command.
@Suite("Command line")
struct CommandTests {
    @Test("simulate, parsed from arguments, writes jsonl events to --output")
    func simulateEndToEnd() throws {
        let dir = try temporaryDirectory()
        let regions = try write(shanghaiGeoJSON, to: "r.geojson", in: dir)
        let track = try write(shanghaiCSV(), to: "phone.csv", in: dir)
        let out = (dir as NSString).appendingPathComponent("events.jsonl")
        var command = try GeofenceCommand.parseAsRoot([
            "simulate", "--regions", regions, "--track", track,
            "--profile", "coreLocation", "--output", out, "--quiet",
            "--map", dir + "/map.svg",
        ])
        try command.run()
        let events = try parseLines(try String(contentsOfFile: out, encoding: .utf8))
        #expect(events.count == 1)
        #expect(events.first?["subject"] as? String == "phone")
        #expect(events.first?["time"] as? String == iso(t0 + 80))
        #expect(FileManager.default.fileExists(atPath: dir + "/map.svg"))
    }

    @Test("simulate --format geojson through the command")
    func geojsonEndToEnd() throws {
        let dir = try temporaryDirectory()
        let regions = try write(shanghaiGeoJSON, to: "r.geojson", in: dir)
        let track = try write(shanghaiCSV(), to: "phone.csv", in: dir)
        let out = dir + "/e.geojson"
        var command = try GeofenceCommand.parseAsRoot([
            "simulate", "--regions", regions, "--track", track,
            "--format", "geojson", "--output", out, "--quiet",
        ])
        try command.run()
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out))) as? [String: Any]
        #expect((root?["features"] as? [Any])?.count == 1)
    }

    @Test("simulate without a track, or with an unknown profile, is a usage error")
    func usageErrors() {
        #expect(throws: (any Error).self) {
            _ = try GeofenceCommand.parseAsRoot(["simulate", "--regions", "r.geojson"])
        }
        #expect(throws: (any Error).self) {
            _ = try GeofenceCommand.parseAsRoot(["simulate", "--regions", "r", "--track", "t", "--profile", "android"])
        }
        #expect(throws: (any Error).self) { _ = try GeofenceCommand.parseAsRoot(["demo", "--vehicle-height", "-1"]) }
    }

    @Test("a missing regions file fails the run with an error naming it")
    func missingRegions() throws {
        var command = try GeofenceCommand.parseAsRoot([
            "simulate", "--regions", "/nope/r.geojson", "--track", "/nope/t.csv", "--quiet",
        ])
        #expect {
            try command.run()
        } throws: { error in
            "\(error)".contains("/nope/r.geojson")
        }
    }

    @Test("with the regions good, the first track that cannot be opened fails the run")
    func missingTrack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let regions = try write(shanghaiGeoJSON, to: "r.geojson", in: dir)
        let track = try write(shanghaiCSV(), to: "phone.csv", in: dir)
        var command = try GeofenceCommand.parseAsRoot([
            "simulate", "--regions", regions, "--track", track, "--track", dir + "/a.csv",
            "--track", dir + "/b.csv", "--quiet", "--output", dir + "/out.jsonl",
        ])
        #expect {
            try command.run()
        } throws: { error in
            "\(error)".contains("/a.csv") && !"\(error)".contains("/b.csv")
        }
    }

    @Test("default subject names come from the file names, made unique")
    func subjects() {
        #expect(SimulateCommand.defaultSubject(forTrackAt: 0, among: ["a/drive.gpx"]) == "drive")
        #expect(SimulateCommand.defaultSubject(forTrackAt: 1, among: ["a/drive.gpx", "b/drive.csv"]) == "drive-2")
        // Two files whose names differ only in Unicode normalization (the engine keys subjects
        // by Swift string equality, which makes them one): numbered by position, not merged.
        let twoSpellings = ["a/caf\u{E9}.gpx", "a/cafe\u{301}.gpx"]
        let names = twoSpellings.indices.map { SimulateCommand.defaultSubject(forTrackAt: $0, among: twoSpellings) }
        #expect(names.map { $0.hasSuffix("-1") } == [true, false] && names[1].hasSuffix("-2"), "\(names)")
        let paths = ["a/drive.gpx", "walk", "b/drive.csv", "a/drive.gpx", "x/.hidden", "y/.hidden", "c/run.nmea"]
        #expect(
            SimulateCommand.defaultSubjects(for: paths)
                == paths.indices.map { SimulateCommand.defaultSubject(forTrackAt: $0, among: paths) })
        #expect(
            SimulateCommand.defaultSubjects(for: paths) == [
                "drive-1", "walk", "drive-3", "drive-4", ".hidden-5", ".hidden-6", "run",
            ], "the same file twice is two subjects")
    }
}
