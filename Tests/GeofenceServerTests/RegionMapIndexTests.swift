import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

@Suite("The region map index: boxes, clusters, search")
struct RegionMapIndexTests {
    /// A seeded generator (SplitMix64), so a failure can be replayed.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Circles from 5 m to 300 km and squares from 10 m to 20°, anywhere (poles and the
    /// antimeridian included), half of them crowded around Fiji's 180°.
    static func regions(_ n: Int, _ rng: inout Seeded) -> [Region] {
        (0..<n).map { i in
            let crowded = i % 2 == 0
            let lat = crowded ? Double.random(in: -20...(-14), using: &rng) : Double.random(in: -89...89, using: &rng)
            var lon =
                crowded ? 180 + Double.random(in: -2...2, using: &rng) : Double.random(in: -180...180, using: &rng)
            if lon > 180 { lon -= 360 }
            let c = Coordinate(uncheckedLatitude: lat, longitude: lon)
            if i % 3 == 0 {
                let half = pow(10, Double.random(in: -4...1.3, using: &rng))
                let south = max(-89.9, lat - half)
                let north = min(89.9, lat + half)
                var ring = [(lon - half, south), (lon + half, south), (lon + half, north), (lon - half, north)].map {
                    var l = $0.0
                    if l > 180 { l -= 360 } else if l < -180 { l += 360 }
                    return Coordinate(uncheckedLatitude: $0.1, longitude: l)
                }
                ring.append(ring[0])
                return Region(
                    identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring)), metadata: ["name": "Zone \(i)"])
            }
            return Region.circle(
                identifier: "c\(i)", center: c, radius: pow(10, Double.random(in: 0.7...5.5, using: &rng)))
        }
    }

    static func box(_ rng: inout Seeded) -> BoundingBox {
        let w = Double.random(in: -180...180, using: &rng)
        let width = pow(10, Double.random(in: -3...2.5, using: &rng))
        var e = w + min(width, 359)
        if e > 180 { e -= 360 }
        let s = Double.random(in: -90...89, using: &rng)
        let n = min(90, s + pow(10, Double.random(in: -3...2.2, using: &rng)))
        return BoundingBox(west: w, south: s, east: e, north: n)
    }

    @Test("a box query finds exactly the regions a scan of every region's box finds, across 180° and the poles")
    func boxesAgreeWithAScan() {
        var rng = Seeded(state: 34)
        var regions = Self.regions(3_000, &rng)
        var index = RegionMapIndex(regions: regions)
        // Replace a third (moved elsewhere) and delete a tenth: updates keep the index exact.
        for i in stride(from: 0, to: regions.count, by: 3) {
            regions[i] = Self.regions(1, &rng)[0].renamed(regions[i].identifier)
            index.insert(regions[i])
        }
        let deleted = Set(regions.indices.filter { $0 % 10 == 7 }.map { regions[$0].identifier })
        for id in deleted { index.remove(id) }
        regions.removeAll { deleted.contains($0.identifier) }
        #expect(index.count == regions.count)
        var boxes = (0..<300).map { _ in Self.box(&rng) }
        boxes += [
            BoundingBox(west: 179, south: -18, east: -179, north: -16),
            BoundingBox(west: -180, south: -90, east: 180, north: 90),
            BoundingBox(west: 170, south: 80, east: -170, north: 90), BoundingBox(west: 0, south: 0, east: 0, north: 0),
        ]
        for box in boxes {
            let expected = Set(regions.filter { box.overlaps(RegionMapIndex.bounds(of: $0)) }.map(\.identifier))
            let found = index.regions(overlapping: box).map { $0.map(\.identifier) } ?? []
            #expect(found.count == Set(found).count, "\(box): a region twice")
            #expect(Set(found) == expected, "\(box)")
        }
    }

    @Test("a box query gives up past its cap instead of collecting everything")
    func cap() {
        var rng = Seeded(state: 7)
        let index = RegionMapIndex(regions: Self.regions(2_000, &rng))
        let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
        #expect(index.regions(overlapping: world, cap: 100) == nil)
        #expect(index.regions(overlapping: world, cap: 2_000)?.count == 2_000)
    }

    @Test("clusters count every region once at every level, and only the cells the box touches")
    func clusters() {
        var rng = Seeded(state: 11)
        let regions = Self.regions(2_000, &rng)
        let index = RegionMapIndex(regions: regions)
        let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
        for level in [0, 2, 5, 8] {
            #expect(index.clusters(in: world, level: level).reduce(0) { $0 + $1.count } == 2_000, "level \(level)")
        }
        // Across 180°: the clusters lie in the box's two halves, none in between.
        let fiji = BoundingBox(west: 178, south: -20, east: -178, north: -14)
        let near = index.clusters(in: fiji, level: 9)
        #expect(!near.isEmpty)
        for c in near {
            #expect(c.east > 178 || c.west < -178, "\(c)")
            #expect(c.west - 1e-9 <= c.longitude && c.longitude <= c.east + 1e-9 && c.count > 0)
        }
        // The sure count never exceeds the centres actually inside.
        let inside = index.entries.values.filter {
            fiji.overlaps(
                RegionBounds(
                    west: $0.centreLongitude, south: $0.centreLatitude, east: $0.centreLongitude,
                    north: $0.centreLatitude))
        }.count
        #expect(index.centresSurelyInside(fiji, level: 9) <= inside)
        #expect(index.centresSurelyInside(fiji, level: 9) > inside / 2)
    }

    @Test("the cluster level is coarsened until the box covers at most the cells allowed")
    func levelBound() {
        let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
        let level = RegionMapIndex.level(24, for: world, cellsAtMost: 4_096)
        let c = RegionMapIndex.cellDegrees(level)
        #expect((360 / c + 2) * (180 / c + 2) <= 4_096)
        #expect(
            RegionMapIndex.level(
                12, for: BoundingBox(west: 121.4, south: 31.1, east: 121.6, north: 31.3), cellsAtMost: 4_096) == 12)
    }

    @Test("search matches ids and names case-insensitively and pages by id")
    func search() {
        var rng = Seeded(state: 5)
        let index = RegionMapIndex(regions: Self.regions(300, &rng))
        let all = index.search("", after: nil, limit: 1_000)
        #expect(all.matched == 300 && all.regions.count == 300 && all.next == nil)
        let zones = index.search("zONE 1", after: nil, limit: 7)
        let expected = index.entries.values.map(\.region).filter { ($0.metadata["name"] ?? "").hasPrefix("Zone 1") }
            .map(\.identifier).sorted()
        #expect(zones.matched == expected.count)
        #expect(zones.regions.map(\.identifier) == Array(expected.prefix(7)))
        let rest = index.search("zone 1", after: zones.next, limit: 1_000)
        #expect(zones.regions.map(\.identifier) + rest.regions.map(\.identifier) == expected)
    }
}

extension Region {
    func renamed(_ id: String) -> Region {
        var r = self
        r.identifier = id
        return r
    }
}
