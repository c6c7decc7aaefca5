import Testing
import GeoFormats

@Test func moduleBuilds() { #expect(Bool(true)) }
