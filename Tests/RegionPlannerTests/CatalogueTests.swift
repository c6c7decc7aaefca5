import Foundation
import Geodesy
import Geofencing
import Testing

@testable import RegionPlanner

extension Region {
    var shapeVertices: [Coordinate] {
        switch shape {
        case .circle(let c, _): [c]
        case .polygon(let p): p.exterior
        case .multiPolygon(let ps): ps.flatMap(\.exterior)
        }
    }
}

@Suite struct CatalogueTests {
    static func mixedRegions(count: Int, seed: UInt64) -> [Region] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            let lat = rng.uniform(-85, 85)
            let lon = rng.uniform(-180, 180)
            let c = Coordinate(uncheckedLatitude: lat, longitude: lon)
            if i % 4 == 0 {
                // A small quadrilateral (possibly across the antimeridian).
                let d = rng.uniform(0.001, 0.05)
                let ring = [(-d, -d), (d, -d * 0.5), (d, d), (-d * 0.7, d)].map {
                    Coordinate(uncheckedLatitude: lat + $0.1, longitude: lon + $0.0)
                }
                return Region(identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring)))
            }
            return .circle(identifier: "c\(i)", center: c, radius: rng.uniform(10, 5_000))
        }
    }

    func bruteForce(_ regions: [Region], _ k: Int, _ q: Coordinate, in catalogue: Catalogue? = nil) -> [String] {
        regions.map { ($0.identifier, catalogue?.distance(of: $0.identifier, from: q) ?? $0.signedDistance(to: q)) }
            .sorted { $0.1 < $1.1 }.prefix(k).map(\.0)
    }

    @Test("nearest-k equals a brute-force scan, inside regions first, over the whole globe")
    func nearestMatchesBruteForce() throws {
        let regions = Self.mixedRegions(count: 3_000, seed: 42)
        let catalogue = try Catalogue(regions.map { CatalogueEntry(region: $0) })
        var rng = SplitMix64(seed: 9)
        for trial in 0..<100 {
            let q: Coordinate
            if trial % 3 == 0 { // right next to / inside a region
                let r = regions[Int(rng.next() % UInt64(regions.count))]
                q = r.boundingCircle.center
            } else {
                q = Coordinate(uncheckedLatitude: rng.uniform(-89.9, 89.9), longitude: rng.uniform(-180, 180))
            }
            let k = 1 + Int(rng.next() % 25)
            let got = catalogue.nearest(k, to: q)
            let want = bruteForce(regions, k, q, in: catalogue)
            #expect(got.map(\.entry.identifier) == want, "query \(q), k \(k)")
            for n in got {
                let exact = n.entry.region.signedDistance(to: q)
                if case .circle = n.entry.region.shape {
                    #expect(n.distance == exact)
                } else if n.distance < 20_000 {
                    #expect(n.distance == exact) // near polygons: their own distance
                } else {
                    // far polygons: a lower bound of the geodesic distance to the polygon
                    let corner = n.entry.region.shapeVertices
                    let nearestVertex = corner.map { Geodesic.wgs84.inverse(q, $0).distance }.min() ?? 0
                    #expect(n.distance <= nearestVertex)
                }
            }
        }
    }

    @Test("a dense city catalogue: nearest-20 equals brute force at every point of a walk")
    func denseNearest() throws {
        let frame = Frame(latitude: 48.85, longitude: 2.35)
        let regions = Scenario.circles(
            count: 20_000, frame: frame, width: 10_000, height: 10_000,
            radii: 20...300, seed: 1)
        let catalogue = try Catalogue(regions.map { CatalogueEntry(region: $0) })
        for i in 0..<20 {
            let q = frame.coordinate(Double(i) * 500, Double(i) * 400)
            #expect(catalogue.nearest(20, to: q).map(\.entry.identifier) == bruteForce(regions, 20, q))
        }
    }

    @Test("insert, replace and remove while running change the answers, and compact keeps them")
    func mutations() throws {
        let frame = Frame(latitude: 10, longitude: 10)
        let regions = Scenario.circles(
            count: 2_000, frame: frame, width: 20_000, height: 20_000,
            radii: 50...100, seed: 2)
        var catalogue = try Catalogue(regions.map { CatalogueEntry(region: $0) })
        let q = frame.coordinate(5_000, 5_000)
        let nearestBefore = catalogue.nearest(1, to: q)[0]
        // A new region right here becomes the nearest.
        try catalogue.insert(CatalogueEntry(region: .circle(identifier: "new", center: q, radius: 10)))
        #expect(catalogue.nearest(1, to: q)[0].entry.identifier == "new")
        #expect(catalogue.count == 2_001)
        // Replacing the old nearest by a far-away copy moves it out of the answer.
        let moved = Region.circle(
            identifier: nearestBefore.entry.identifier,
            center: frame.coordinate(19_000, 19_000), radius: 50)
        try catalogue.insert(CatalogueEntry(region: moved))
        #expect(catalogue.count == 2_001)
        #expect(!catalogue.nearest(2, to: q).map(\.entry.identifier).contains(nearestBefore.entry.identifier))
        #expect(catalogue.entry(nearestBefore.entry.identifier)?.region == moved)
        // Removing works for tree and overlay entries.
        #expect(catalogue.remove("new") != nil)
        #expect(catalogue.remove("new") == nil)
        #expect(catalogue.remove("r7") != nil)
        #expect(catalogue.count == 1_999)
        var all = regions.filter { $0.identifier != "r7" && $0.identifier != nearestBefore.entry.identifier }
        all.append(moved)
        let want = bruteForce(all, 15, q)
        #expect(catalogue.nearest(15, to: q).map(\.entry.identifier) == want)
        catalogue.compact()
        #expect(catalogue.count == 1_999)
        #expect(catalogue.nearest(15, to: q).map(\.entry.identifier) == want)
    }

    @Test("a duplicate identifier is refused, naming the entry's position")
    func duplicate() {
        let c = Coordinate(uncheckedLatitude: 0, longitude: 0)
        let entries = [
            CatalogueEntry(region: .circle(identifier: "a", center: c, radius: 10)),
            CatalogueEntry(region: .circle(identifier: "b", center: c, radius: 10)),
            CatalogueEntry(region: .circle(identifier: "a", center: c, radius: 20)),
        ]
        #expect(throws: PlannerError.duplicateIdentifier("a", index: 2)) { try Catalogue(entries) }
    }

    @Test("an invalid region is refused with its position and the engine's reason; nothing is half-added")
    func invalid() throws {
        let c = Coordinate(uncheckedLatitude: 0, longitude: 0)
        let bad = [
            CatalogueEntry(region: .circle(identifier: "ok", center: c, radius: 10)),
            CatalogueEntry(region: .circle(identifier: "neg", center: c, radius: -5)),
        ]
        do {
            _ = try Catalogue(bad)
            Issue.record("expected an error")
        } catch {
            guard case .invalidEntry(let index, let id, let underlying) = error,
                case .invalidRegion(_, let field, _) = underlying
            else {
                Issue.record("\(error)")
                return
            }
            #expect(index == 1 && id == "neg" && field == "radius")
        }
        var catalogue = try Catalogue([bad[0]])
        #expect(throws: PlannerError.self) { try catalogue.insert(bad[1]) }
        #expect(catalogue.count == 1 && catalogue.entry("neg") == nil)
        #expect(catalogue.nearest(5, to: c).count == 1)
    }

    @Test("an empty catalogue answers nothing")
    func empty() throws {
        let c = Coordinate(uncheckedLatitude: 0, longitude: 0)
        #expect(try Catalogue([]).nearest(3, to: c).isEmpty)
        #expect(Catalogue().nearest(3, to: c).isEmpty)
    }
}
