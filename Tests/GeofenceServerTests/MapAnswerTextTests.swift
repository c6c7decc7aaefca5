import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

@Suite("The map answer's text: the same document as its JSON tree, features re-encoded when they change")
struct MapAnswerTextTests {
    @Test("regions and clusters answers, for 300 boxes at every zoom, read back as the tree's document")
    func sameDocument() throws {
        var rng = RegionMapIndexTests.Seeded(state: 34)
        var regions = RegionMapIndexTests.regions(2_000, &rng)
        regions.append(
            Region.circle(
                identifier: "quoted \"name\"", center: Coordinate(uncheckedLatitude: -0.000_000_4, longitude: 0),
                radius: 30, notifyOnEntry: false, dwell: 60, metadata: ["name": "tab\there", "note": "é ✓"]))
        let catalog = RegionCatalog()
        catalog.replace(with: regions)
        var kinds: Set<String> = []
        for i in 0..<300 {
            let box = RegionMapIndexTests.box(&rng)
            let zoom = Double(i % 21)
            let limit = [1, 50, 1_000][i % 3]
            let (text, json) = catalog.readWithText { index, texts in
                let answer = MapAnswer.answer(index, box: box, zoom: zoom, limit: limit)
                return (answer.text(&texts), answer.json)
            }
            let read = try ServerJSON.parse(Data(text))
            #expect(read == json, "box \(box), zoom \(zoom), limit \(limit)")
            kinds.insert(json["clusters"]?.array?.isEmpty == false ? "clusters" : "regions")
        }
        #expect(kinds == ["clusters", "regions"])
    }

    @Test("a region changed or deleted is answered as it is now, not as its kept text")
    func changesForgetText() throws {
        let catalog = RegionCatalog()
        let here = Coordinate(uncheckedLatitude: 31.2, longitude: 121.5)
        catalog.replace(with: [Region.circle(identifier: "yard", center: here, radius: 100)])
        let box = BoundingBox(west: 121.4, south: 31.1, east: 121.6, north: 31.3)
        func radius() throws -> Double? {
            let text = catalog.readWithText { index, texts in
                MapAnswer.answer(index, box: box, zoom: 15, limit: 1_000).text(&texts)
            }
            return try ServerJSON.parse(Data(text))["regions"]?.array?.first?["properties"]?["radius"]?.number
        }
        #expect(try radius() == 100)
        catalog.upsert([Region.circle(identifier: "yard", center: here, radius: 250)])
        #expect(try radius() == 250)
        catalog.delete("yard")
        #expect(try radius() == nil)
        catalog.upsert([Region.circle(identifier: "yard", center: here, radius: 40)])
        #expect(try radius() == 40)
        catalog.replace(with: [Region.circle(identifier: "yard", center: here, radius: 75)])
        #expect(try radius() == 75)
    }
}
