import Foundation
import Geodesy
import Geofencing
import Testing

@testable import GeofenceServer

/// `GET /v1/regions/nearby` does bounded work: a capped search radius over an index whose
/// cost does not grow with the distance to the nearest region.
@Suite("Nearby search")
struct NearbyTests {
    @Test(
        "a query 1,100 km from the only region answers with nothing within the search radius",
        arguments: StoreKind.allCases)
    func farFromEveryRegion(_ store: StoreKind) async throws {
        try await Harness.run(store) { h in
            let key = try await h.key("acme")
            _ = try await h.call(
                .PUT, "/v1/regions/far", key: key, body: circleFeature("far", lat: 0, lon: 10, radius: 50))
            let r = try await h.call(.GET, "/v1/regions/nearby?lat=0&lon=0", key: key)
            #expect(r.status == 200, "\(r)")
            #expect(r["regions"]?.array?.isEmpty == true)
            #expect(r["searchRadiusMeters"]?.number == 100_000)
            #expect(r["replanRadiusMeters"]?.number == 50_000)
            // Within a radius that reaches it, it is found at its boundary distance.
            let near = try await h.call(.GET, "/v1/regions/nearby?lat=0&lon=9.5", key: key)
            #expect(
                near["regions"]?.array?.first?["distanceMeters"]?.number.map { abs($0 - 55_610) < 100 } == true,
                "\(near)")
            let tooFar = try await h.call(.GET, "/v1/regions/nearby?lat=0&lon=0&radius=100001", key: key)
            #expect(tooFar.status == 400)
            #expect(tooFar["field"]?.string == "radius")
        }
    }

    @Test(
        "the index answers exactly what a scan of every region answers, near the poles and across the antimeridian too")
    func indexEqualsBruteForce() throws {
        var rng = SplitMix(seed: 21)
        var regions: [Region] = []
        for i in 0..<600 {
            let lat = rng.next(in: -89.9...89.9)
            let lon = rng.next(in: -180...180)
            let c = Coordinate(uncheckedLatitude: lat, longitude: lon)
            if i % 3 == 0 {
                let d = rng.next(in: 0.001...0.5)
                let ring = [(0.0, 0.0), (d, 0), (d, d), (0, d)].map {
                    Coordinate(uncheckedLatitude: min(89.99, lat + $0.1), longitude: Self.wrap(lon + $0.0))
                }
                regions.append(Region(identifier: "p\(i)", shape: .polygon(Polygon(exterior: ring))))
            } else {
                regions.append(.circle(identifier: "c\(i)", center: c, radius: rng.next(in: 1...200_000)))
            }
        }
        // Dense spots, the antimeridian and a pole get extra regions and queries.
        for (k, spot) in [(0.0, 179.99), (0.0, -179.99), (89.5, 0), (-89.5, 120), (31.2, 121.5)].enumerated() {
            for j in 0..<40 {
                let c = Coordinate(
                    uncheckedLatitude: max(-89.99, min(89.99, spot.0 + rng.next(in: -0.3...0.3))),
                    longitude: Self.wrap(spot.1 + rng.next(in: -0.3...0.3)))
                regions.append(.circle(identifier: "s\(k)-\(j)", center: c, radius: rng.next(in: 5...3_000)))
            }
        }
        let index = NearbyIndex(regions: regions)
        var queries: [Coordinate] = (0..<300).map { _ in
            Coordinate(uncheckedLatitude: rng.next(in: -90...90), longitude: rng.next(in: -180...180))
        }
        queries += [(0, 180), (0, -179.995), (90, 0), (-90, 0), (89.6, 45), (31.2, 121.5)].map {
            Coordinate(uncheckedLatitude: $0.0, longitude: $0.1)
        }
        for q in queries {
            for (radius, limit) in [(100_000.0, 20), (1_000_000, 5), (2_000, 100)] {
                let got = index.nearest(to: q, radius: radius, limit: limit)
                let all = regions.map { (id: $0.identifier, d: max(0, $0.signedDistance(to: q))) }
                    .filter { $0.d <= radius }.sorted { ($0.d, $0.id) < ($1.d, $1.id) }
                let want = all.prefix(limit).map(\.id)
                #expect(got.regions.map(\.region.identifier) == want, "query \(q) radius \(radius) limit \(limit)")
                if all.count > limit { #expect(got.nextDistance <= all[limit].d + 1e-9) }
            }
        }
    }

    @Test("the index follows region changes: replaced and deleted regions are never answered")
    func indexFollowsChanges() {
        var index = NearbyIndex(regions: [
            .circle(identifier: "a", center: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 100)
        ])
        index.insert(.circle(identifier: "a", center: Coordinate(uncheckedLatitude: 10, longitude: 10), radius: 100))
        #expect(
            index.nearest(to: Coordinate(uncheckedLatitude: 0, longitude: 0), radius: 100_000, limit: 5).regions.isEmpty
        )
        #expect(
            index.nearest(to: Coordinate(uncheckedLatitude: 10, longitude: 10), radius: 100_000, limit: 5).regions.count
                == 1)
        index.remove("a")
        #expect(
            index.nearest(to: Coordinate(uncheckedLatitude: 10, longitude: 10), radius: 100_000, limit: 5).regions
                .isEmpty)
        #expect(index.count == 0)
    }

    static func wrap(_ lon: Double) -> Double {
        var l = lon
        while l > 180 { l -= 360 }
        while l <= -180 { l += 360 }
        return l
    }
}

/// A small seeded generator (tests only).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func nextUInt() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(nextUInt() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }
}
