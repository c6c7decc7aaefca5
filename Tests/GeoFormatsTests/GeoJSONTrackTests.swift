import Foundation
import Geodesy
import Testing

@testable import GeoFormats

@Suite("GeoJSON tracks")
struct GeoJSONTrackTests {
    @Test func readsLineStringWithCoordTimesAndPointFeatures() throws {
        let reader = try TrackReader(contentsOf: try fixture("track.geojson"))
        #expect(reader.format == .geojson)
        let pts = try reader.readAll()
        #expect(pts.count == 3)
        #expect(pts[0].time == date("2015-06-02T02:08:00Z") && pts[0].elevation == 12)
        #expect(pts[1].coordinate.latitude == 31.250394)
        #expect(pts[2].time == date("2015-06-02T02:08:20Z"))
        #expect(pts[2].horizontalAccuracy == 6 && pts[2].speed == 1.5 && pts[2].course == 90)
    }

    @Test func readsMultiLineStringWithNestedTimes() throws {
        let text = """
            {"type":"Feature","properties":{"times":[[0,1],[2]]},
             "geometry":{"type":"MultiLineString","coordinates":[[[1,2],[1,3]],[[1,4]]]}}
            """
        #expect(try TrackReader(string: text).readAll().map(\.time.timeIntervalSince1970) == [0, 1, 2])
    }

    @Test func timeCountMismatchNamesTheFeature() {
        let text = """
            {"type":"FeatureCollection","features":[{"type":"Feature","properties":{"times":[0]},
             "geometry":{"type":"LineString","coordinates":[[1,2],[1,3]]}}]}
            """
        #expect(
            errors(text) == [
                TrackParseError(
                    format: .geojson, position: .feature(0), reason: .timeCountMismatch(coordinates: 2, times: 1))
            ])
    }

    @Test func invalidJSONGivesLineAndColumn() {
        #expect(
            errors("{\"type\":\n  \"Feature\" \"x\"}") == [
                TrackParseError(
                    format: .geojson, position: .line(2, column: 13),
                    reason: .invalidJSON("expected ',' or '}' in an object"), isFatal: true)
            ])
    }

    @Test func badPointInLineStringIsSkippedWithItsIndex() {
        let text = """
            {"type":"Feature","properties":{"times":["2015-06-02T02:08:00Z","later","2015-06-02T02:08:02Z"]},
             "geometry":{"type":"LineString","coordinates":[[1,2],[1,3],[1,200]]}}
            """
        #expect(
            errors(text) == [
                TrackParseError(format: .geojson, position: .feature(0, point: 1), reason: .invalidTime("later")),
                TrackParseError(
                    format: .geojson, position: .feature(0, point: 2),
                    reason: .invalidCoordinate(.latitudeOutOfRange(200))),
            ])
        #expect(points(text).count == 1)
    }

    @Test func polygonIsNotATrack() {
        let text = #"{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[]}}"#
        #expect(
            errors(text) == [
                TrackParseError(
                    format: .geojson, position: .feature(0),
                    reason: .invalidGeoJSON("geometry type 'Polygon' is not a track (use LineString or Point)"))
            ])
    }
}
