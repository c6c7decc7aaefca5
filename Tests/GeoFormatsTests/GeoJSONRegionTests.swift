import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("GeoJSON regions")
struct GeoJSONRegionTests {
    @Test func readsCirclesPolygonsWithHolesAndMultiPolygons() throws {
        let regions = try GeoJSONRegionReader.read(contentsOf: try fixture("regions.geojson"))
        #expect(regions.map(\.id) == ["shanghai", "square", "42"])
        #expect(
            regions[0].geometry
                == .circle(center: Coordinate(uncheckedLatitude: 31.239394, longitude: 121.499781), radius: 2000))
        #expect(regions[0].notifyOnEntry && !regions[0].notifyOnExit && regions[0].dwell == nil)
        #expect(regions[0].metadata == ["name": "Lujiazui", "tags": ["demo", 1, nil]])
        guard case .polygon(let square) = regions[1].geometry else {
            Issue.record("not a polygon")
            return
        }
        #expect(square.outer.count == 5 && square.holes.count == 1 && square.holes[0][1].latitude == 0.75)
        #expect(regions[1].dwell == 120)
        #expect(regions[1].metadata["owner"]?["name"] == "A \"quoted\" owner")
        #expect(regions[0].metadata["name"]?.textValue == "Lujiazui")
        #expect(regions[0].metadata["tags"]?.textValue == #"["demo",1,null]"#)
        guard case .multiPolygon(let parts) = regions[2].geometry else {
            Issue.record("not a multipolygon")
            return
        }
        #expect(parts.count == 2 && parts[1].outer[0].longitude == 180) // -180 normalised
        #expect(regions[2].metadata.isEmpty)
    }

    @Test func acceptsASingleFeature() throws {
        let text =
            #"{"type":"Feature","properties":{"id":"a","radius":1.5},"geometry":{"type":"Point","coordinates":[10,20,30]}}"#
        #expect(
            try GeoJSONRegionReader.read(string: text) == [
                RegionFeature(
                    id: "a", geometry: .circle(center: Coordinate(uncheckedLatitude: 20, longitude: 10), radius: 1.5))
            ])
    }

    @Test func writerRoundTripsThroughTheReader() throws {
        let regions = try GeoJSONRegionReader.read(contentsOf: try fixture("regions.geojson"))
        let text = GeoJSONWriter.featureCollection(regions)
        #expect(try GeoJSONRegionReader.read(string: text) == regions)
        #expect(GeoJSONWriter.featureCollection(try GeoJSONRegionReader.read(string: text)) == text)
        #expect(text.contains(#""notifyOnExit":false"#) && !text.contains("notifyOnEntry"))
    }

    @Test func pointFeaturesForEventsAreValidGeoJSON() throws {
        let feature = GeoJSONWriter.pointFeature(
            at: Coordinate(uncheckedLatitude: 31.24, longitude: 121.5),
            properties: ["event": "enter", "region": "shanghai", "time": "2015-06-02T02:08:20Z"])
        var stream = GeoJSONFeatureStream()
        let text = stream.begin + stream.add(feature) + stream.add(feature) + stream.end
        let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let features = parsed?["features"] as? [[String: Any]]
        #expect(features?.count == 2)
        let geometry = features?[0]["geometry"] as? [String: Any]
        #expect(geometry?["coordinates"] as? [Double] == [121.5, 31.24])
        #expect((features?[0]["properties"] as? [String: Any])?["event"] as? String == "enter")
    }

    @Test func jsonValueWritesEscapesAndNumbers() throws {
        let v: JSONValue = ["s": "a\"b\\c\n\u{1}", "i": 3, "d": 0.1, "big": 1e300, "n": nil, "b": false]
        #expect(v.description == #"{"b":false,"big":1e+300,"d":0.1,"i":3,"n":null,"s":"a\"b\\c\n\u0001"}"#)
        #expect(try JSONParser.parse(Array(v.description.utf8)) == v)
    }

    // Malformed inputs: each asserts the exact error and position.

    private func feature(_ geometry: String, _ properties: String) -> String {
        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"ok","radius":5},"geometry":{"type":"Point","coordinates":[0,0]}},"#
            + #"{"type":"Feature","geometry":\#(geometry),"properties":\#(properties)}]}"#
    }

    private let point = #"{"type":"Point","coordinates":[10,20]}"#
    private let square = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#

    @Test func badJSONGivesLineAndColumn() {
        #expect(throws: GeoJSONError.invalidJSON(line: 3, column: 5, reason: "expected ',' or ']' in an array")) {
            try GeoJSONRegionReader.read(string: "{\"type\":\"FeatureCollection\",\n\"features\":[\n {} {}]}")
        }
    }

    @Test func missingIDNamesTheFeature() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .missingID)) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"radius":5}"#))
        }
    }

    @Test func emptyIDIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .emptyID)) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":"","radius":5}"#))
        }
    }

    @Test func nonStringIDIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .invalidID("boolean"))) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":true,"radius":5}"#))
        }
    }

    @Test func duplicateIDNamesBothFeatures() {
        #expect(throws: GeoJSONError.duplicateID("ok", firstIndex: 0, secondIndex: 1)) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":"ok","radius":5}"#))
        }
    }

    @Test func unclosedRingIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .ringNotClosed(path: "coordinates[0]"))) {
            try GeoJSONRegionReader.read(
                string: feature(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#, #"{"id":"p"}"#))
        }
    }

    @Test func ringWithTooFewPositionsIsRejected() {
        #expect(
            throws: GeoJSONError.invalidFeature(index: 1, problem: .ringTooShort(path: "coordinates[1][0]", count: 3))
        ) {
            try GeoJSONRegionReader.read(
                string: feature(
                    #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[0,0],[1,0],[0,0]]]]}"#,
                    #"{"id":"m"}"#))
        }
    }

    @Test func latitudeOutOfRangeNamesThePosition() {
        #expect(
            throws: GeoJSONError.invalidFeature(
                index: 1, problem: .coordinateOutOfRange(path: "coordinates[0][2]", latitude: 95, longitude: 1))
        ) {
            try GeoJSONRegionReader.read(
                string: feature(#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,95],[0,0]]]}"#, #"{"id":"p"}"#))
        }
    }

    @Test func overflowingNumberIsNotFinite() {
        #expect(
            throws: GeoJSONError.invalidFeature(
                index: 1, problem: .coordinateOutOfRange(path: "coordinates", latitude: 0, longitude: .infinity))
        ) {
            try GeoJSONRegionReader.read(
                string: feature(#"{"type":"Point","coordinates":[1e999,0]}"#, #"{"id":"c","radius":5}"#))
        }
    }

    @Test func positionThatIsNotNumbersIsRejected() {
        #expect(
            throws: GeoJSONError.invalidFeature(
                index: 1,
                problem: .invalidCoordinates(path: "coordinates", reason: "a position must be [longitude, latitude]"))
        ) {
            try GeoJSONRegionReader.read(
                string: feature(#"{"type":"Point","coordinates":["NaN",0]}"#, #"{"id":"c","radius":5}"#))
        }
    }

    @Test func negativeRadiusIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .invalidRadius(-5))) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":"c","radius":-5}"#))
        }
    }

    @Test func hugeRadiusIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .radiusTooLarge(2e7))) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":"c","radius":2e7}"#))
        }
    }

    @Test func pointWithoutRadiusIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .missingRadius)) {
            try GeoJSONRegionReader.read(string: feature(point, #"{"id":"c"}"#))
        }
    }

    @Test func unknownGeometryIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .unsupportedGeometry("LineString"))) {
            try GeoJSONRegionReader.read(
                string: feature(#"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#, #"{"id":"l"}"#))
        }
    }

    @Test func wrongPropertyTypesAreRejected() {
        #expect(
            throws: GeoJSONError.invalidFeature(
                index: 1, problem: .invalidProperty(name: "notifyOnEntry", expected: "boolean"))
        ) {
            try GeoJSONRegionReader.read(string: feature(square, #"{"id":"p","notifyOnEntry":"yes"}"#))
        }
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .invalidDwell(-1))) {
            try GeoJSONRegionReader.read(string: feature(square, #"{"id":"p","dwell":-1}"#))
        }
    }

    @Test func missingGeometryIsRejected() {
        #expect(throws: GeoJSONError.invalidFeature(index: 1, problem: .missingGeometry)) {
            try GeoJSONRegionReader.read(string: feature("null", #"{"id":"p"}"#))
        }
    }

    @Test func wrongDocumentsAreRejected() {
        #expect(throws: GeoJSONError.emptyInput) { try GeoJSONRegionReader.read(string: " \n") }
        #expect(throws: GeoJSONError.invalidDocument("the top-level value is a array, not an object")) {
            try GeoJSONRegionReader.read(string: "[]")
        }
        #expect(throws: GeoJSONError.invalidDocument("'features' is missing or not an array")) {
            try GeoJSONRegionReader.read(string: #"{"type":"FeatureCollection"}"#)
        }
        #expect(throws: GeoJSONError.invalidFeature(index: 0, problem: .notAFeature("\"Point\""))) {
            try GeoJSONRegionReader.read(string: #"{"type":"FeatureCollection","features":[{"type":"Point"}]}"#)
        }
    }

    @Test func missingFileIsUnreadable() {
        #expect(throws: GeoJSONError.unreadable("/nonexistent/r.geojson: No such file or directory")) {
            try GeoJSONRegionReader.read(path: "/nonexistent/r.geojson")
        }
    }
}
