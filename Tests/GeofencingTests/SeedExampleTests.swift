import Foundation
import Geodesy
import Testing

@testable import Geofencing

@Suite("Seed example: a 2,000 m region in Shanghai")
struct SeedExampleTests {
    static let outside = try! Coordinate(latitude: 31.259394, longitude: 121.499781)
    static let inside = try! Coordinate(latitude: 31.240394, longitude: 121.499781)

    @Test(
        "one outside fix, then inside fixes: exactly one entry, after the confirmation time",
        arguments: [HysteresisPolicy.coreLocation, .precise])
    func seedGivesExactlyOneEntry(policy: HysteresisPolicy) throws {
        var engine = Engine(policy: policy)
        try engine.add(Scene.circle("shanghai", Scene.shanghai, radius: 2_000))
        var events = try engine.process(Scene.fix(Self.outside, at: 0, accuracy: 10))
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "shanghai") == .outside)
        for s in 1...60 {
            events += try engine.process(Scene.fix(Self.inside, at: Double(s), accuracy: 10))
        }
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.kind == .enter && e.regionID == "shanghai" && e.subject == "phone")
        // Confirmed no earlier than the first inside fix plus the confirmation time ...
        #expect(Scene.seconds(e.time) >= 1 + policy.confirmationTime)
        #expect(Scene.seconds(e.time) <= 1 + policy.confirmationTime + 1)
        // ... and the crossing is placed between the last outside and the first inside fix.
        #expect(Scene.seconds(e.crossedAt) > 0 && Scene.seconds(e.crossedAt) < 1)
        #expect(e.fix.timestamp == e.time)
        #expect(engine.state(of: "phone", in: "shanghai") == .inside)
    }

    @Test("the inside fixes alone give no entry: registering inside is silent")
    func seedWithoutOutsideFixIsSilent() throws {
        var engine = Engine(policy: .coreLocation)
        try engine.add(Scene.circle("shanghai", Scene.shanghai, radius: 2_000))
        let events = try Scene.run(&engine, (0...60).map { Scene.fix(Self.inside, at: Double($0)) })
        #expect(events.isEmpty)
        #expect(engine.state(of: "phone", in: "shanghai") == .inside)
    }
}
