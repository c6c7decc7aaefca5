import Foundation
import Geofencing
import Testing

@testable import GeofenceCLI

@Suite("Demo")
struct DemoTests {
    @Test("the demo runs every scenario, prints its story and writes the maps")
    func story() throws {
        let dir = try temporaryDirectory()
        let report = try Demo(outputDirectory: dir, timeZone: utc).run()
        #expect(report.results.map(\.scenario) == ["low-bridge", "shop-nearby", "shanghai"])
        #expect(report.text.contains("Low bridge ahead: 10′6″ clearance, "))
        #expect(report.text.contains("Low bridge in 1 mile: 10′6″ clearance"))
        #expect(report.text.contains("Welcome to Shanghai!"))
        #expect(report.text.contains("Crumb: fresh croissants"))
        for r in report.results {
            let svg = try String(contentsOfFile: r.mapPath, encoding: .utf8)
            #expect(svg.contains("class=\"event\""))
            #expect(svg.contains("class=\"track\""))
        }
        // Shanghai: one entry (after the simulator moves inside), one exit.
        let shanghai = try #require(report.results.last)
        #expect(shanghai.events.map(\.event.kind) == [.enter, .exit])
        // The bridge warning comes before the bridge, within its 300 m circle.
        let bridge = try #require(report.results.first?.notifications.last { $0.text.hasPrefix("Low bridge ahead") })
        let metres = Int(bridge.text.split(separator: " ").dropLast().last ?? "") ?? -1
        #expect((1...300).contains(metres))
    }

    @Test("the vehicle height picks the bridges that are too low")
    func vehicleHeight() throws {
        let dir = try temporaryDirectory()
        let low = try #require(DemoScenario.all.first)
        let short = try Demo(outputDirectory: dir, vehicleHeight: 3.0, timeZone: utc, scenarios: [low]).run()
        #expect(short.text.contains("0 of 3 bridges too low"))
        #expect(short.results[0].notifications.isEmpty)
        let tall = try Demo(outputDirectory: dir, vehicleHeight: 4.5, timeZone: utc, scenarios: [low]).run()
        #expect(tall.text.contains("2 of 3 bridges too low"))
        #expect(tall.results[0].notifications.contains { $0.text.contains("14′0″") })
        #expect(tall.results[0].notifications.contains { $0.text.contains("10′6″") })
    }

    @Test("notification wording: distance to the bridge in tens of metres or kilometres")
    func distances() {
        #expect(PhoneNotification.distanceText(183) == "180 m")
        #expect(PhoneNotification.distanceText(1_651) == "1.7 km")
    }
}
