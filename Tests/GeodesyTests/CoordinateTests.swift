import Testing

@testable import Geodesy

@Test func coordinateNormalisesLongitude() throws {
    #expect(try Coordinate(latitude: 0, longitude: 190).longitude == -170)
    #expect(try Coordinate(latitude: 0, longitude: -180).longitude == 180)
    #expect(throws: GeodesyError.latitudeOutOfRange(91)) { try Coordinate(latitude: 91, longitude: 0) }
    #expect(throws: GeodesyError.self) { try Coordinate(latitude: .nan, longitude: 0) }
}
