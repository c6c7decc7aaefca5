import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

@Suite("simulate honours the GeoJSON region properties")
struct RegionPropertySimulationTests {
    private func regions(_ properties: String) throws -> [Region] {
        try InputFiles.regions(
            fromGeoJSON: """
                {"type":"FeatureCollection","features":[
                 {"type":"Feature","geometry":{"type":"Point","coordinates":[121.499781,31.239394]},
                  "properties":{"id":"shanghai","radius":2000\(properties)}}]}
                """, path: "regions.geojson")
    }

    /// Inside from the first fix, for two minutes.
    private func startingInside() -> TrackInput {
        let fixes = (0..<24).map { (t: t0 + Double($0) * 5, lat: 31.240394) }
        return TrackInput(subject: "phone", name: "t", source: ArrayTrackSource(positions: positions(fixes)))
    }

    @Test("a subject already inside gets no event without initialTrigger")
    func noInitialTrigger() throws {
        let (text, _) = try simulate(try regions(""), [startingInside()], policy: .coreLocation)
        #expect(try parseLines(text).isEmpty)
    }

    @Test("initialTrigger [\"enter\"] gives an initial entry to a subject already inside")
    func initialEnter() throws {
        let (text, _) = try simulate(
            try regions(#","initialTrigger":["enter"]"#), [startingInside()], policy: .coreLocation)
        let events = try parseLines(text)
        #expect(events.map { $0["event"] as? String } == ["enter"])
        #expect(events.first?["region"] as? String == "shanghai")
    }

    @Test("parent and source reach the engine's region and change no event")
    func tierPropertiesAreCarried() throws {
        let r = try regions(#","parent":"china","source":"gov""#)
        #expect(r[0].parent == "china" && r[0].source == "gov")
        let (text, _) = try simulate(r, [startingInside()], policy: .coreLocation)
        #expect(try parseLines(text).isEmpty)
    }

    @Test("a bad initialTrigger stops the run naming the feature and the property")
    func badTrigger() {
        #expect(
            throws: InputError.malformed(
                path: "regions.geojson", position: "feature 0",
                reason: #"initialTrigger names "now", expected "enter", "exit" or "dwell""#)
        ) {
            try regions(#","initialTrigger":["now"]"#)
        }
    }
}
