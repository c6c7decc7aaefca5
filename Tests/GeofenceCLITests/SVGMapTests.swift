import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceCLI

@Suite("SVG map")
struct SVGMapTests {
    func render() throws -> String {
        var sim = try Simulation(
            regions: [
                shanghaiRegion,
                .circle(identifier: "far", center: try Coordinate(latitude: 31.3, longitude: 121.6), radius: 100),
                Region(
                    identifier: "ring",
                    shape: .polygon(
                        Polygon(
                            exterior: [
                                try Coordinate(latitude: 31.22, longitude: 121.48),
                                try Coordinate(latitude: 31.22, longitude: 121.52),
                                try Coordinate(latitude: 31.26, longitude: 121.52),
                                try Coordinate(latitude: 31.26, longitude: 121.48),
                            ],
                            holes: [
                                [
                                    try Coordinate(latitude: 31.235, longitude: 121.495),
                                    try Coordinate(latitude: 31.235, longitude: 121.505),
                                    try Coordinate(latitude: 31.245, longitude: 121.505),
                                    try Coordinate(latitude: 31.245, longitude: 121.495),
                                ]
                            ]))),
            ],
            policy: .precise)
        sim.map = MapRecorder()
        var out = ""
        _ = try sim.run(
            tracks: [
                TrackInput(subject: "phone", name: "t", source: ArrayTrackSource(positions: positions(shanghaiFixes())))
            ],
            writer: JSONLinesEventWriter(), to: &out)
        let recorder = try #require(sim.map)
        #expect(recorder.events.count == 2) // enter shanghai, exit the ring (into its hole)
        var map = SVGMap(
            title: "Shanghai <test>", regions: sim.engine.regions, tracks: recorder.tracks, events: recorder.events)
        map.timeZone = utc
        return map.render()
    }

    @Test("the map has its regions, the track, the events, a scale bar, a legend and a title")
    func structure() throws {
        let svg = try render()
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("<title>Shanghai &lt;test&gt;</title>"))
        #expect(svg.contains("class=\"region\" data-id=\"shanghai\""))
        #expect(svg.contains("class=\"region\" data-id=\"ring\""))
        #expect(svg.contains("data-id=\"far\"")) // few regions: all are in view
        #expect(svg.contains("class=\"track\" data-subject=\"phone\""))
        #expect(svg.contains("<polyline"))
        #expect(svg.contains("class=\"event\" data-kind=\"enter\" data-region=\"shanghai\""))
        #expect(svg.contains("enter shanghai · 02:01:"))
        #expect(svg.contains("id=\"scale-bar\""))
        #expect(svg.contains("id=\"legend\""))
        #expect(svg.contains("fill-rule=\"evenodd\""))
    }

    @Test("the polygon with a hole is drawn as two rings in one path")
    func holes() throws {
        let svg = try render()
        let line = try #require(svg.split(separator: "\n").first { $0.contains("data-id=\"ring\"") })
        #expect(line.filter { $0 == "Z" }.count == 2)
    }

    @Test("the SVG is well-formed XML")
    func wellFormed() throws {
        let svg = try render()
        // Every opened element is closed: a light check without an XML parser.
        var stack: [Substring] = []
        var i = svg.startIndex
        while let open = svg[i...].firstIndex(of: "<") {
            let close = try #require(svg[open...].firstIndex(of: ">"))
            let tag = svg[svg.index(after: open)..<close]
            i = svg.index(after: close)
            if tag.hasPrefix("?") || tag.hasPrefix("!") || tag.hasSuffix("/") { continue }
            let name = tag.split(separator: " ").first ?? ""
            if name.hasPrefix("/") {
                #expect(stack.popLast() == name.dropFirst())
            } else {
                stack.append(name)
            }
        }
        #expect(stack.isEmpty)
    }

    @Test("with many regions the view is the track and the regions with events; far regions are left out")
    func manyRegions() throws {
        var regions = [shanghaiRegion]
        for i in 0..<300 {
            regions.append(
                .circle(
                    identifier: "far-\(i)", center: try Coordinate(latitude: 40 + Double(i) * 0.01, longitude: 10),
                    radius: 100))
        }
        var recorder = MapRecorder()
        for p in positions(shanghaiFixes()) {
            recorder.record(
                LocationFix(
                    subject: "s", coordinate: try Coordinate(latitude: p.latitude, longitude: p.longitude),
                    timestamp: p.time))
        }
        let svg = SVGMap(title: "t", regions: regions, tracks: recorder.tracks, events: []).render()
        #expect(svg.contains("data-id=\"shanghai\""))
        #expect(!svg.contains("data-id=\"far-"))
    }

    @Test("nice scale-bar lengths are 1, 2 or 5 times a power of ten")
    func niceLengths() {
        #expect(SVGMap.niceLength(730) == 500)
        #expect(SVGMap.niceLength(1_999) == 1_000)
        #expect(SVGMap.niceLength(2_400) == 2_000)
        #expect(SVGMap.niceLength(0.5) == 1)
    }
}
