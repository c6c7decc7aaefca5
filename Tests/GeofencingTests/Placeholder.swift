import Testing
import Geofencing

@Test func moduleBuilds() { #expect(Bool(true)) }
