import Testing
import RegionMonitoring

@Test func moduleBuilds() { #expect(Bool(true)) }
