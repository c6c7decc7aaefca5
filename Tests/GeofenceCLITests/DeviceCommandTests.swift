import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

@Suite("geofence device")
struct DeviceCommandTests {
    @Test("the server must be an http(s) URL and the key non-empty")
    func validation() throws {
        for bad in [
            ["--server", "ftp://h", "--key", "k"], ["--server", "127.0.0.1:8080", "--key", "k"],
            ["--server", "http://h", "--key", ""], ["--server", "http://", "--key", "k"],
        ] {
            #expect(throws: (any Error).self, "\(bad)") {
                try GeofenceCommand.parseAsRoot(["device"] + bad + ["--track", "t.csv"])
            }
        }
        let ok = try #require(
            try GeofenceCommand.parseAsRoot([
                "device", "--server", "https://geo.example.com", "--key", "k",
                "--track", "t.csv",
            ]) as? DeviceCommand)
        #expect(ok.device == nil && !ok.noReport)
    }

    @Test("the interval told to the server is the track's longest, none for fixes a second apart, at most an hour")
    func longestInterval() {
        func fixes(_ times: [Double]) -> [LocationFix] {
            times.map {
                LocationFix(
                    subject: "p", coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0),
                    timestamp: Date(timeIntervalSince1970: $0))
            }
        }
        #expect(DeviceRun.longestInterval(fixes([0, 1, 2, 3])) == nil)
        #expect(DeviceRun.longestInterval(fixes([0, 1, 61, 62])) == 60)
        #expect(DeviceRun.longestInterval(fixes([0, 86_400])) == 3_600)
        #expect(DeviceRun.longestInterval([]) == nil)
    }

    @Test("an unreadable track is an error naming the file")
    func missingTrack() {
        #expect(throws: InputError.self) { try DeviceRun.fixes(track: "/nonexistent/track.csv", subject: "p") }
    }
}
