import CoreLocationBridge
import Foundation
import Geofencing
import Testing

/// Core Location's "negative means invalid" values become "unknown", never wrong numbers.
@Suite("CLLocation values → LocationFix")
struct LocationSampleTests {
    static let t = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a valid location keeps every value, its own timestamp included")
    func valid() throws {
        let fix = try #require(
            LocationSample(
                latitude: 31.2394, longitude: 121.4998, horizontalAccuracy: 8, speed: 1.4,
                speedAccuracy: 0.5, course: 270, courseAccuracy: 10, timestamp: Self.t
            )
            .locationFix(subject: "me"))
        #expect(fix.coordinate.latitude == 31.2394)
        #expect(fix.coordinate.longitude == 121.4998)
        #expect(fix.horizontalAccuracy == 8)
        #expect(fix.speed == 1.4)
        #expect(fix.course == 270)
        #expect(fix.timestamp == Self.t)
        #expect(fix.subject == "me")
    }

    @Test(
        "a negative horizontal accuracy means the coordinate is invalid: no fix",
        arguments: [-1.0, -2.0, -.infinity, .nan, .infinity])
    func invalidCoordinate(_ accuracy: Double) {
        #expect(
            LocationSample(latitude: 31, longitude: 121, horizontalAccuracy: accuracy, timestamp: Self.t)
                .locationFix(subject: "me") == nil)
    }

    @Test("speed −1, or any speed with a negative speed accuracy, is unknown")
    func unknownSpeed() throws {
        let negative = LocationSample(
            latitude: 31, longitude: 121, horizontalAccuracy: 5, speed: -1, speedAccuracy: 1, timestamp: Self.t)
        #expect(try #require(negative.locationFix(subject: "me")).speed == nil)
        let unsure = LocationSample(
            latitude: 31, longitude: 121, horizontalAccuracy: 5, speed: 3, speedAccuracy: -1, timestamp: Self.t)
        #expect(try #require(unsure.locationFix(subject: "me")).speed == nil)
    }

    @Test("course −1, a negative course accuracy, or a course beyond 360° is unknown")
    func unknownCourse() throws {
        for (course, accuracy) in [(-1.0, 5.0), (90, -1), (400, 5)] {
            let sample = LocationSample(
                latitude: 31, longitude: 121, horizontalAccuracy: 5, course: course,
                courseAccuracy: accuracy, timestamp: Self.t)
            #expect(try #require(sample.locationFix(subject: "me")).course == nil, "course \(course) ± \(accuracy)")
        }
    }

    @Test("coordinates out of range or not numbers give no fix")
    func outOfRange() {
        for (lat, lon) in [(91.0, 0.0), (-90.5, 0), (0, 180.5), (.nan, 0), (0, .infinity)] {
            #expect(
                LocationSample(latitude: lat, longitude: lon, horizontalAccuracy: 5, timestamp: Self.t)
                    .locationFix(subject: "me") == nil, "\(lat), \(lon)")
        }
    }

    @Test("longitude −180 is the antimeridian, normalised as the engine expects")
    func antimeridian() throws {
        let fix = try #require(
            LocationSample(latitude: 10, longitude: -180, horizontalAccuracy: 5, timestamp: Self.t)
                .locationFix(subject: "me"))
        #expect(fix.coordinate.longitude == 180)
    }
}
