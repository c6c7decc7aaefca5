import Foundation
import GeoFormats
import Geofencing
import RegionPlanner
import Testing

@Suite("GeoJSON regions in the planner")
struct RegionFeatureTests {
    let text =
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[120.2,30.3]},"properties":{"id":"hz","radius":9000,"parent":"zj","source":"gov","initialTrigger":["exit","enter"],"notifyOnExit":false,"dwell":30,"name":"Hangzhou","rank":2}}]}"#

    @Test("Region(feature:) carries the shape, flags, dwell, initial trigger, tier parent and source")
    func conversion() throws {
        let r = Region(feature: try GeoJSONRegionReader.read(string: text)[0])
        #expect(r.identifier == "hz" && r.notifyOnEntry && !r.notifyOnExit && r.dwell == 30)
        #expect(r.initialTrigger == [.enter, .exit])
        #expect(r.parent == "zj" && r.source == "gov")
        #expect(r.metadata == ["name": "Hangzhou", "rank": "2", "parent": "zj", "source": "gov"])
        #expect(r.initialTrigger.names == [.enter, .exit])
    }

    @Test("a catalogue entry takes its tier parent from the region unless one is given")
    func catalogueEntryParent() throws {
        let r = Region(feature: try GeoJSONRegionReader.read(string: text)[0])
        #expect(CatalogueEntry(region: r).parent == "zj")
        #expect(CatalogueEntry(region: r, parent: "other").parent == "other")
        var top = r
        top.parent = nil
        #expect(CatalogueEntry(region: top).parent == nil)
    }
}
